// docs/certification.md has one table of every input a vendor controls: each option of the run
// (run-option-table.ts, by flag, or by variable where it has none), each Playwright option the run
// passes on, and each field of the target file (schemas/target.schema.json, the credentials each)
// has a row there. A new input without its row fails here. The table is made from the rows of
// conformance/report/vendor-inputs.ts, and every row that rests on the vendor's word is a line of a
// report's scope (so of the signed statement): both are checked here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RUN_OPTIONS } from '../../../conformance/run-option-table.ts';
import { PLAYWRIGHT_OPTIONS_HELP } from '../../../conformance/run/run-options.ts';
import { REPO_ROOT } from '../../support/reference-client.ts';
import {
  VENDOR_INPUTS,
  inputsTableMarkdown,
  vendorsWordOf,
  type VendorInput,
} from '../../../conformance/report/vendor-inputs.ts';

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

test('the committed table is the one its rows make (npm run docs)', async () => {
  const { formattedCertificationDoc } = await import('../../../scripts/generate-docs.ts');
  assert.equal(
    doc,
    await formattedCertificationDoc(),
    'docs/certification.md is out of date: run npm run docs',
  );
});

/** The rows of the committed table whose third column rests on the vendor's word, by their first column. */
function vendorsWordRows(): string[] {
  return section
    .split('\n')
    .filter((line) => line.startsWith('| ') && !line.startsWith('| input ') && !line.startsWith('| ---'))
    .map((line) => line.split('|').map((cell) => cell.trim()))
    .filter((cells) => /vendor's word/.test(cells[3] ?? ''))
    .map((cells) => (cells[1] ?? '').replaceAll('`', ''));
}

test("every row marked the vendor's word is a line of a file target's scope, so of the statement", () => {
  const rows = vendorsWordRows();
  assert.ok(
    rows.includes('credentials.revoked') && rows.includes('hosts') && rows.length >= 8,
    rows.join(', '),
  );
  const lines = vendorsWordOf({ mode: 'file' });
  assert.deepEqual(
    lines.map((line) => line.slice(0, line.indexOf(' ('))),
    rows,
    'one line per row, in the table order',
  );
  for (const line of lines) assert.match(line, /^[^:]+ \([a-z /]+\): the vendor's word that /);
});

test('a key the kit minted and revoked itself is no longer the vendor’s word; the embedded reference has none', () => {
  const without = vendorsWordOf({ mode: 'file', keysMinted: ['fullAccess', 'revoked'] });
  assert.ok(!without.some((line) => line.startsWith('credentials.revoked ')));
  assert.equal(without.length, vendorsWordOf({ mode: 'file' }).length - 1);
  // The minted full-access key's access is still the vendor's admin API's word.
  assert.ok(without.some((line) => line.startsWith('credentials.fullAccess ')));
  assert.deepEqual(vendorsWordOf({ mode: 'embedded' }), []);
});

test('a new row that rests on the vendor’s word reaches the table and the statement with no second edit', () => {
  const row = { input: '`madeUpField`', kind: 'target file', vendorsWord: 'that it is made up' };
  const rows = [...VENDOR_INPUTS, row];
  // What vendorsWordOf and inputsTableMarkdown read is this list: a row added to it is in both.
  (VENDOR_INPUTS as VendorInput[]).push(row);
  try {
    assert.match(
      inputsTableMarkdown(),
      /\| `madeUpField` \| target file \| the vendor's word that it is made up \|/,
    );
    assert.equal(
      vendorsWordOf({ mode: 'file' }).at(-1),
      "madeUpField (target file): the vendor's word that it is made up",
    );
  } finally {
    (VENDOR_INPUTS as VendorInput[]).pop();
  }
  assert.equal(VENDOR_INPUTS.length, rows.length - 1);
});
