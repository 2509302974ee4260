// Where the plain-HTTP rules (TRANSPORT-PLAIN-HTTP-*) probed is recorded in the report's target,
// declared or by default. A refused connection passes those rules, so a target file that points
// plainHttpBaseUrl at a closed port passed them for a host that serves keys over plain HTTP, and
// nothing in the report showed where plain HTTP was probed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { declareTarget } from '../../../conformance/deployment/target.ts';
import { declareEmbeddedTarget } from '../../../conformance/deployment/embedded-target.ts';
import { runMetadataOf } from '../../../conformance/run/run-target.ts';
import { scratchDirectory } from '../../support/scratch.ts';

function targetFile(content: object): string {
  const file = join(scratchDirectory('plain-http-base-url-'), 'target.json');
  writeFileSync(file, JSON.stringify(content));
  return file;
}

test("a target file's plainHttpBaseUrl is recorded as the run used it", () => {
  const file = targetFile({
    baseUrl: 'https://api.acme.example/v1',
    plainHttpBaseUrl: 'http://api.acme.example:9/v1',
  });
  const { target } = runMetadataOf(declareTarget(file, {}), false, {});
  assert.equal(target.plainHttpBaseUrl, 'http://api.acme.example:9/v1');
});

test('without one, the default the run used is recorded: the base URL’s host over http://', () => {
  const file = targetFile({ baseUrl: 'https://api.acme.example:8443/v1' });
  const { target } = runMetadataOf(declareTarget(file, {}), false, {});
  assert.equal(target.plainHttpBaseUrl, 'http://api.acme.example/v1');
});

test("the embedded server's plain-HTTP port, chosen when it starts, is recorded as {free port}", () => {
  const { target } = runMetadataOf(declareEmbeddedTarget({}), false, {});
  assert.equal(target.plainHttpBaseUrl, 'http://acme.api.localhost:{free port}/v1');
});
