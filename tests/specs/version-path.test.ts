// VERSION-PATH asks one question — is {base_url}/customers missing? — and fails only on the
// evidence that it is (404, 410). An application whose 401 is an HTML or plain-text page, as
// passport-http-bearer's default is, answers there: VERSION-PATH passes, and the rules about the
// error's code and body are the ones that fail.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runConformance } from '../support/conformance-run.ts';
import { gatedDeploymentPerSuite } from '../support/independent-deployment.ts';

// passport-http-bearer without a custom error handler: a keyless request gets a plain 401.
const deployment = gatedDeploymentPerSuite({
  gate: (request) =>
    request.headers.authorization === undefined
      ? {
          answer: {
            status: 401,
            headers: {
              'Content-Type': 'text/html; charset=utf-8',
              'WWW-Authenticate': 'Bearer realm="Users"',
            },
            body: '<html><body><h1>Unauthorized</h1></body></html>',
          },
        }
      : { pass: true },
});

test('a 401 with an HTML body at {base_url}/customers: VERSION-PATH passes, the error-code rule fails', async () => {
  const { target } = deployment();
  const run = await runConformance(
    ['--target', target.file, '--grep', '@VERSION-PATH|@AUTH-MISSING-HEADER$'],
    target.env,
  );
  const verdicts = Object.fromEntries((run.report?.rules ?? []).map((rule) => [rule.id, rule.verdict]));
  assert.equal(
    verdicts['VERSION-PATH'],
    'pass',
    run.report?.rules.find((rule) => rule.id === 'VERSION-PATH')?.message,
  );
  assert.equal(verdicts['AUTH-MISSING-HEADER'], 'fail', 'the HTML 401 has no error code: that rule says so');
});
