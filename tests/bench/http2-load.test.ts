// The HTTP/2 load generator of the bench counts only answers it expected: against a bare
// node:http2 server answering known bytes, a run expecting them counts no wrong answer, and a run
// expecting another body counts every answer wrong. And a server whose certificate the CA does not
// sign gets no request at all.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { LoadChild, ServerChild, type Http2Load } from '../../bench/children.ts';
import { http2KeepAliveRequest, verifiedHttp2Answer } from '../../bench/http2-keep-alive.ts';
import { DOMAIN, fixedResponseOf } from '../../bench/keep-alive.ts';
import { apiHostname } from '../../reference-server/http/hosts.ts';
import { ensureCertificates } from '../../reference-server/listeners/certificates.ts';
import { scratchDirectory } from '../support/scratch.ts';

const certDir = scratchDirectory('http2-load-');
const host = apiHostname('acme', 'production', DOMAIN);
const scenario = { name: 'no Authorization header' };
const answer = {
  status: 401,
  statusMessage: '',
  headers: [['content-type', 'application/json']] as [string, string][],
  body: '{"error":{"code":"missing_authorization_header"}}',
};
let bare: ServerChild;
let load: Http2Load;
let ca = '';

before(async () => {
  bare = await ServerChild.start({ kind: 'bare', certDir, tenantIds: [], http2: true }, 'bare HTTP/2 server');
  await bare.respond(fixedResponseOf(answer));
  ca = readFileSync(join(certDir, 'ca.crt'), 'utf8');
  load = new LoadChild('http2-load-process.ts', 'HTTP/2 load');
});

after(async () => {
  load.stop();
  await bare.stop();
  rmSync(certDir, { recursive: true, force: true });
});

/** One 1-second run without warm-up, every answer expected to be `expected`. */
function runFor(expected: typeof answer, runCa = ca) {
  return load.run({
    ...http2KeepAliveRequest(bare.port, host, scenario, expected, 1, runCa),
    warmupSeconds: 0,
  });
}

test('the answers it expected are counted right, over HTTP/2, with their body bytes', async () => {
  assert.equal((await verifiedHttp2Answer(bare.port, host, ca, undefined)).body, answer.body);
  const result = await runFor(answer);
  assert.ok(result.requests > 0, 'requests were answered');
  assert.equal(result.wrongAnswers, 0);
  assert.equal(result.errors, 0);
  assert.equal(result.bytesPerAnswer, Buffer.byteLength(answer.body));
  assert.ok(result.latencyP99Ms >= result.latencyP50Ms);
});

test('an answer with another body or status counts as wrong, every one of them', async () => {
  const otherBody = await runFor({ ...answer, body: '{}' });
  assert.ok(otherBody.requests > 0);
  assert.equal(otherBody.wrongAnswers, otherBody.requests);
  const otherStatus = await runFor({ ...answer, status: 200 });
  assert.equal(otherStatus.wrongAnswers, otherStatus.requests);
});

test('a certificate the CA does not sign fails the run: no request is made', async () => {
  const stranger = scratchDirectory('http2-load-other-ca-');
  try {
    await ensureCertificates(stranger, DOMAIN);
    await assert.rejects(runFor(answer, readFileSync(join(stranger, 'ca.crt'), 'utf8')), /certificate/i);
  } finally {
    rmSync(stranger, { recursive: true, force: true });
  }
});
