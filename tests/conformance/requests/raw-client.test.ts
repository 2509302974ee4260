// The suite's raw client trusts the target's CA besides the system's, made into one TLS context
// per client: certificate verification stays on whatever the CA file says.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { RawClient } from '../../../conformance/requests/raw-client.ts';
import { ensureCertificates } from '../../../reference-server/listeners/certificates.ts';
import { startTestServer, type TestServer } from '../../support/reference-client.ts';
import { scratchDirectory } from '../../support/scratch.ts';

const HOSTS = { '*.localhost': '127.0.0.1' };
let target: TestServer;
let otherCa: string;

before(async () => {
  target = await startTestServer();
  otherCa = (await ensureCertificates(scratchDirectory('other-ca-'), 'localhost')).caPath;
});
after(() => target.close());

test('the target CA verifies; another CA or none is a certificate failure, never an answer', async () => {
  const url = `${target.server.baseUrl('acme')}/customers`;
  const client = new RawClient({ hosts: HOSTS, caFile: target.server.caPath });
  for (let attempt = 0; attempt < 2; attempt++) {
    const trusted = await client.send({ url });
    assert.equal(trusted.kind === 'response' && trusted.status, 401, 'the same context serves every request');
  }
  const wrongCa = await new RawClient({ hosts: HOSTS, caFile: otherCa }).send({ url });
  assert.equal(wrongCa.kind, 'failure');
  assert.match(wrongCa.kind === 'failure' ? wrongCa.error : '', /CERT|SIGNATURE|VERIFY/);
  const systemOnly = await new RawClient({ hosts: HOSTS }).send({ url });
  assert.equal(systemOnly.kind, 'failure');
  assert.match(systemOnly.kind === 'failure' ? systemOnly.error : '', /UNABLE_TO_VERIFY|SELF_SIGNED|CERT/);
});
