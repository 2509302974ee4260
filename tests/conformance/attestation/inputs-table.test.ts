// docs/certification.md has one table of every input a vendor controls: each option of the run
// (run-option-table.ts, by flag, or by variable where it has none), each Playwright option the run
// passes on, and each field of the target file (schemas/target.schema.json, the credentials each)
// has a row there. A new input without its row fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RUN_OPTIONS } from '../../../conformance/run-option-table.ts';
import { PLAYWRIGHT_OPTIONS_HELP } from '../../../conformance/run/run-options.ts';
import { REPO_ROOT } from '../../support/reference-client.ts';

const doc = readFileSync(join(REPO_ROOT, 'docs', 'certification.md'), 'utf8');
const section = doc.slice(doc.indexOf('## Every input a vendor controls'));
/** The names in the table's first column (backticked). */
const rows = new Set(
  section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .flatMap((line) => [...(line.split('|')[1] ?? '').matchAll(/`([^`]+)`/g)].map((match) => match[1] ?? '')),
);

test('every option of the run has a row', () => {
  for (const row of RUN_OPTIONS) {
    const name = row.flag !== undefined ? `--${row.flag}` : row.variable;
    assert.ok(rows.has(name), `no row for ${name}`);
  }
});

test('every Playwright option the run passes on has a row', () => {
  const options = [...PLAYWRIGHT_OPTIONS_HELP.split('\n')[0]!.matchAll(/--[a-z-]+/g)].map(
    (match) => match[0],
  );
  assert.ok(options.length >= 10);
  for (const option of options) assert.ok(rows.has(option), `no row for ${option}`);
});

test('every field of the target file, and each credential, has a row', () => {
  const schema = JSON.parse(readFileSync(join(REPO_ROOT, 'schemas', 'target.schema.json'), 'utf8')) as {
    properties: Record<string, { properties?: Record<string, unknown> }>;
  };
  const fields = Object.keys(schema.properties);
  assert.ok(fields.includes('baseUrl'));
  // `credentials` is an object of fields: each has its own row below.
  for (const field of fields.filter((name) => name !== 'credentials'))
    assert.ok(rows.has(field), `no row for ${field}`);
  for (const credential of Object.keys(schema.properties.credentials?.properties ?? {}))
    assert.ok(rows.has(`credentials.${credential}`), `no row for credentials.${credential}`);
});

test('the trust store and the environment the run reads have their rows', () => {
  for (const name of [
    'NODE_EXTRA_CA_CERTS',
    'NODE_OPTIONS',
    'SSL_CERT_FILE',
    'SSL_CERT_DIR',
    '--use-openssl-ca',
  ])
    assert.ok(rows.has(name), `no row for ${name}`);
});
