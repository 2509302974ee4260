// Every option that can change a verdict is in the certificate's scope. A list not followed to its
// end (--max-list-pages reached while a next page existed) makes the run partial: against a server
// whose lists leak another tenant's customer from the second page on, one page is INCOMPLETE under
// strict, never CONFORMANT, and says why; ten pages find the leak. Playwright's --retries is shown
// beside the verdict wherever it is shown.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fixtureKeyEnvironment } from '../../../conformance/deployment/embedded-target.ts';
import { writeTargetOf, type ConformanceRun } from '../../support/conformance-run.ts';
import { runTargetsTogether } from '../../support/batched-runs.ts';
import { ATTESTATION_ENV, ENV } from '../../../conformance/env.ts';
import { startTestServer, type TestServer } from '../../support/reference-client.ts';

let server: TestServer;
let onePage: ConformanceRun;
let tenPages: ConformanceRun;

before(
  async () => {
    // Pages of two customers; HTTP/1.1 alone, so that a run over it is complete in protocols.
    server = await startTestServer({
      fault: 'other-tenant-customer-leaked-after-first-page',
      customersPageSize: 2,
      http2: false,
    });
    const file = writeTargetOf(server, 'leaks past page one');
    // Two runs of `run --target FILE --profile strict` of their own, checked in one batch: one with
    // --max-list-pages 1 --retries 1 --bundle, the other with --max-list-pages 10 --no-bundle.
    const target = { file, env: fixtureKeyEnvironment(), profile: 'strict' } as const;
    const runs = await runTargetsTogether([
      {
        ...target,
        name: 'one-page',
        retries: 1,
        settings: { [ENV.maxListPages]: '1', [ATTESTATION_ENV.bundle]: '1' },
      },
      { ...target, name: 'ten-pages', settings: { [ENV.maxListPages]: '10', [ATTESTATION_ENV.bundle]: '0' } },
    ]);
    const [one, ten] = [runs.get('one-page'), runs.get('ten-pages')];
    assert.ok(one && ten, 'both runs');
    [onePage, tenPages] = [one, ten];
  },
  { timeout: 600_000 },
);

after(() => server.close());

test('ten pages: the leak on page two is found, NOT CONFORMANT', () => {
  assert.equal(tenPages.report?.verdict, 'NOT CONFORMANT', tenPages.stdout);
  assert.equal(tenPages.report?.scope?.settings?.maxListPages, 10);
  assert.equal(existsSync(join(tenPages.reportDir, 'bundle')), false, '--no-bundle: none written');
  assert.equal(tenPages.report?.scope?.listsCut, undefined);
});

test('one page: the list was cut, so the run is partial — INCOMPLETE under strict, never CONFORMANT', () => {
  const report = onePage.report;
  assert.ok(report, onePage.stderr);
  assert.equal(report.verdict, 'INCOMPLETE', onePage.stdout);
  const cut = report.scope?.listsCut ?? [];
  assert.ok(cut.length > 0, JSON.stringify(report.scope));
  assert.match(
    cut[0] ?? '',
    /was followed no further than 1 pages \(--max-list-pages\) while it named a next page/,
  );
  for (const sentence of cut) assert.ok(report.scope?.partial.includes(sentence));
  assert.match(
    onePage.stdout,
    /^VERDICT: INCOMPLETE · lists cut, retries 1 \(leaks past page one, profile strict\)$/m,
  );
  assert.match(onePage.stdout, /^Scope: PARTIAL: .*The customer list of the tenant under test/m);
});

test('every setting that can change a verdict is in the scope, the badge and the statement', () => {
  const settings = onePage.report?.scope?.settings;
  assert.deepEqual(settings, {
    retries: 1,
    repeatEach: 1,
    maxRetries: 4,
    retryBudgetSeconds: 60,
    requestTimeoutSeconds: 10,
    maxListPages: 1,
    maxListRecords: 1000,
  });
  const badge = readFileSync(join(onePage.reportDir, 'bundle', 'badge.svg'), 'utf8');
  assert.match(badge, /<title>tenant-auth conformance: INCOMPLETE · lists cut, retries 1 · strict · /);
  const statement = JSON.parse(readFileSync(join(onePage.reportDir, 'bundle', 'statement.json'), 'utf8')) as {
    predicate: { scope?: { settings?: unknown } };
  };
  assert.deepEqual(statement.predicate.scope?.settings, settings);
});
