// Keys in the report files a run writes, from records made in-process (sample-run.ts): each shown as
// an expression of its variable (the KeyNamer), so that a curl command of the evidence sends exactly
// what the suite sent, and no file holds a key — which the same scan finds without the KeyNamer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { alteredKeys } from '../../../conformance/judging/key-variants.ts';
import { curlCommand } from '../../../conformance/report/curl.ts';
import { REPORT_FILES, writeReports } from '../../../conformance/report/write-reports.ts';
import { REDACTED } from '../../../conformance/redaction/secrets.ts';
import { KeyNamer } from '../../../conformance/redaction/shown-keys.ts';
import type { ConformanceReport, Evidence } from '../../../schemas/generated/conformance-report.ts';
import { describeSchemaErrors, validatorFor } from '../../../schemas/validators.ts';
import { scanDirectory, secretForms } from '../../support/artifact-scan.ts';
import { SAMPLE_KEYS, sampleRun } from './sample-run.ts';
import { scratchDirectory } from '../../support/scratch.ts';

const KEY = SAMPLE_KEYS.STAGING_FULL_ACCESS_KEY;
const namer = new KeyNamer([{ variable: 'FULL_KEY', value: KEY }]);

test('the KeyNamer shows a key and each form the suite derives from it as an expression of its variable', () => {
  assert.equal(namer.show(`Bearer ${KEY}`), 'Bearer $FULL_KEY');
  assert.equal(namer.show(`Bearer "${KEY}"`), 'Bearer "$FULL_KEY"');
  assert.equal(namer.show(`?api_key=${KEY}&x=1`), '?api_key=$FULL_KEY&x=1');
  assert.equal(namer.show(`Bearer ${KEY}A`), 'Bearer ${FULL_KEY}A', 'braces where a name character follows');
  assert.equal(namer.show(`Bearer ${KEY.slice(0, -1)}`), 'Bearer ${FULL_KEY%?}');
  assert.equal(
    namer.show(`Basic ${Buffer.from(`${KEY}:`).toString('base64')}`),
    `Basic $(printf %s: $FULL_KEY | base64 | tr -d '[:space:]')`,
  );
  assert.equal(namer.show('nothing secret here, 0123456789abcdef'), 'nothing secret here, 0123456789abcdef');
  // An alteration no expression describes is still masked.
  const shown = namer.show(`Bearer ${KEY.slice(0, 20)}zzzzzzzzzzzz`);
  assert.equal(shown, `Bearer ${REDACTED}`);
});

test('a curl command sends exactly the headers the suite sent, every key form included', () => {
  const sentValues = [
    `Bearer ${KEY}`,
    `Bearer "${KEY}"`,
    `Bearer '${KEY}'`,
    ...alteredKeys(KEY).map((altered) => `Bearer ${altered.key}`),
    `Basic ${Buffer.from(`${KEY}:`).toString('base64')}`,
    `Token ${KEY}`,
    '',
  ];
  for (const value of sentValues) {
    const evidence: Evidence = {
      method: 'GET',
      url: `https://acme.api.localhost:8443/v1/customers?api_key=${KEY}`,
      requestHeaders: [
        { name: 'Host', value: 'globex.api.localhost:8443' },
        { name: 'Authorization', value: namer.show(value) },
      ],
    };
    evidence.url = namer.show(evidence.url);
    const command = curlCommand(evidence, {
      caFile: '/tmp/ca dir/ca.crt',
      hosts: { '*.localhost': '127.0.0.1' },
    });
    assert.ok(!command.includes(KEY), 'the command holds no key');
    // The command as bash runs it, with curl replaced by a function printing its arguments.
    const argv = execFileSync(
      'bash',
      ['--norc', '--noprofile', '-c', `curl() { printf '%s\\0' "$@"; }; ${command}`],
      {
        env: { PATH: process.env.PATH, FULL_KEY: KEY },
        encoding: 'utf8',
      },
    )
      .split('\0')
      .slice(0, -1);
    const header = value === '' ? 'Authorization;' : `Authorization: ${value}`;
    assert.ok(argv.includes(header), `sends ${JSON.stringify(value)}; got ${JSON.stringify(argv)}`);
    assert.ok(argv.includes('Host: globex.api.localhost:8443'), 'a Host header other than the URL’s is kept');
    // curl would offer HTTP/2 on its own: evidence found over HTTP/1.1 is reproduced over it.
    assert.ok(argv.includes('--http1.1'), 'HTTP/1.1 said');
    assert.ok(argv.includes(`https://acme.api.localhost:8443/v1/customers?api_key=${KEY}`));
    assert.deepEqual(argv.slice(argv.indexOf('--cacert'), argv.indexOf('--cacert') + 4), [
      '--cacert',
      '/tmp/ca dir/ca.crt',
      '--resolve',
      'acme.api.localhost:8443:127.0.0.1',
    ]);
  }
});

test('the report files of a run match their schema and hold no key; without the KeyNamer the same scan finds the keys', () => {
  const forms = secretForms(SAMPLE_KEYS);
  const { report, exchanges } = sampleRun();
  const validate = validatorFor<ConformanceReport>('conformance-report.schema.json');
  assert.ok(validate(report), describeSchemaErrors(validate.errors).join('\n'));
  const clean = scratchDirectory('report-files-');
  writeReports(report, { exchanges }, clean);
  const scanned = scanDirectory(clean, forms);
  assert.equal(scanned.filesScanned, Object.keys(REPORT_FILES).length);
  assert.deepEqual(scanned.findings, []);
  // The redaction removed: a KeyNamer that knows no key.
  const leaky = sampleRun(new KeyNamer([]));
  const dirty = scratchDirectory('report-files-leaky-');
  writeReports(leaky.report, { exchanges: leaky.exchanges }, dirty);
  const leaked = new Set(
    scanDirectory(dirty, forms).findings.map((finding) => finding.where.split('/').at(-1)),
  );
  assert.deepEqual([...leaked].sort(), Object.values(REPORT_FILES).sort(), 'each file would show a key');
  assert.ok(
    readFileSync(join(dirty, REPORT_FILES.har), 'utf8').includes(
      `Bearer ${SAMPLE_KEYS.STAGING_FULL_ACCESS_KEY}`,
    ),
  );
});
