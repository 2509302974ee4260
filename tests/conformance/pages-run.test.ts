// The reference server with a fault that names its next page by Google's `nextPageToken` (no
// Link header) and leaks another tenant's customer from page 2 on: the suite follows the token to
// page 2 and the run is NOT CONFORMANT by TENANT-OWN-DATA-ONLY — a suite that knew only Link and
// has_more would have ended the list after page 1 and called it CONFORMANT.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { fixtureKeyEnvironment } from '../../conformance/deployment/embedded-target.ts';
import { runConformance, writeTargetOf, type ConformanceRun } from '../support/conformance-run.ts';
import { startTestServer, type TestServer } from '../support/reference-client.ts';

let server: TestServer;
let run: ConformanceRun;

before(async () => {
  server = await startTestServer({
    fault: 'other-tenant-customer-leaked-past-a-next-page-token',
    customersPageSize: 2,
    http2: false,
  });
  const target = writeTargetOf(server, 'pages by nextPageToken');
  run = await runConformance(['--target', target], fixtureKeyEnvironment());
});

after(() => server.close());

test('the leak past a nextPageToken page is found: NOT CONFORMANT by TENANT-OWN-DATA-ONLY, no list cut', () => {
  assert.equal(run.report?.verdict, 'NOT CONFORMANT', run.stdout);
  const rule = run.report?.rules.find((candidate) => candidate.id === 'TENANT-OWN-DATA-ONLY');
  assert.equal(rule?.verdict, 'fail', rule?.message);
  assert.equal(run.report?.scope?.listsCut, undefined);
  assert.match(rule?.message ?? '', /page 2 of its list/);
});
