// Publishing to the registry over HTTPS, on the embedded database and on a PostgreSQL server: a
// bundle verified on arrival by the code of `verify` with the publisher's own keys is stored with
// its facts; the same bundle twice is one run; concurrent publishes lose nothing; every bad input
// is a 4xx naming the problem, nothing is stored, and the registry goes on serving; a publish cut
// off mid-upload leaves nothing; no token is ever in a log line, a page or an answer. The bad inputs
// are the table of refusals.ts; the bundles, made once for both backends, publish-bundles.ts's.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:tls';
import { join } from 'node:path';
import { keyFingerprint } from '../../../conformance/attestation/signing-key.ts';
import { storedCounts } from '../../../registry/store/runs.ts';
import { addPublisher, tokenDigest } from '../../../registry/publish/publishers.ts';
import { uploadOf } from '../../../registry/publish/upload.ts';
import { BACKENDS, stopBackends } from '../support/backends.ts';
import { HTTP_RULES, MUST_RULES, makeBundle, removeBundles } from '../support/bundles.ts';
import { startTestRegistry, type TestRegistry } from '../support/registry.ts';
import { conformant, distinct, failingHttp, other, vendor } from './publish-bundles.ts';
import { refusalsOf, type Json } from './refusals.ts';

after(() => removeBundles());
const sha256 = (bytes: Buffer | string): string => createHash('sha256').update(bytes).digest('hex');

for (const backend of BACKENDS) {
  describe(`publish on the ${backend} database`, () => {
    let registry: TestRegistry;
    let token: string;
    const answers: string[] = [];

    before(async () => {
      registry = await startTestRegistry(
        backend,
        { acme: [vendor.publicPem], globex: [other.publicPem], auditor: [] },
        { maxBundleBytes: 512 * 1024 },
      );
      token = registry.tokens.get('acme') ?? '';
    });
    after(async () => {
      await registry.close();
      if (backend === 'server') await stopBackends();
    });

    const publish = async (bundle: string, deployment: string, version: string, as = token) => {
      const answer = await registry.publish(bundle, deployment, version, as);
      answers.push(JSON.stringify(answer.json));
      return { status: answer.status, json: answer.json as Json };
    };

    test('a verified bundle is stored with its deployment, version, scope, verdict, rule outcomes, digests and signer', async () => {
      const answer = await publish(conformant, 'acme-prod', '1.4.2');
      assert.equal(answer.status, 201, JSON.stringify(answer.json));
      const run = answer.json.run;
      assert.equal(answer.json.stored, 'new');
      assert.equal(run?.deployment, 'acme-prod');
      assert.equal(run?.version, '1.4.2');
      assert.equal(run?.baseUrl, 'https://api.acme.example/v1');
      assert.equal(run?.targetName, 'acme staging');
      assert.equal(run?.profile, 'strict');
      assert.equal(run?.verdict, 'CONFORMANT');
      assert.deepEqual(run?.protocolsChecked, ['HTTP/1.1', 'HTTP/2']);
      assert.deepEqual(run?.protocolsOffered, ['HTTP/1.1', 'HTTP/2']);
      assert.equal((run?.options as { maxListPages?: number }).maxListPages, 10);
      assert.equal(run?.signer, keyFingerprint(vendor.publicKey));
      assert.equal(run?.publisher, 'acme');
      assert.equal(run?.startedAt, '2026-11-25T10:00:00.000Z');
      assert.equal(run?.bundleSha256, sha256(readFileSync(join(conformant, 'SHA256SUMS'))));
      assert.equal(run?.statementSha256, sha256(readFileSync(join(conformant, 'statement.json'))));
      assert.equal(run?.reportSha256, sha256(readFileSync(join(conformant, 'conformance.json'))));
      const detail = (await registry.request(`/api/v1/runs/${run?.id}`)).json as Json;
      const overall = detail.rules?.filter((rule) => rule.protocol === 'all') ?? [];
      assert.equal(
        overall.length,
        MUST_RULES.length + HTTP_RULES.length + overall.filter((rule) => rule.level === 'ADVISORY').length,
      );
      assert.ok(detail.rules?.some((rule) => rule.protocol === 'HTTP/2' && rule.verdict === 'pass'));
      // The raw bundle, content-addressed, as published.
      const report = await registry.request(`/runs/${run?.id}/files/conformance.json`);
      assert.equal(report.text, readFileSync(join(conformant, 'conformance.json'), 'utf8'));
      assert.equal(report.headers.get('content-security-policy'), 'sandbox');
    });

    test('the same bundle published twice is one run; under another version it is refused', async () => {
      const before = await storedCounts(registry.backend.db);
      const again = await publish(conformant, 'acme-prod', '1.4.2');
      assert.equal(again.status, 200);
      assert.equal(again.json.stored, 'duplicate');
      const relabelled = await publish(conformant, 'acme-prod', '1.4.3');
      assert.equal(relabelled.status, 409);
      assert.match(relabelled.json.error?.message ?? '', /already run \d+, published as acme-prod 1\.4\.2/);
      assert.deepEqual(await storedCounts(registry.backend.db), before);
    });

    test('a NOT CONFORMANT run is stored too: it is a verified fact about that version', async () => {
      const answer = await publish(failingHttp, 'acme-prod', '1.5.0');
      assert.equal(answer.status, 201);
      assert.equal(answer.json.run?.verdict, 'NOT CONFORMANT');
    });

    test('concurrent publishes lose nothing', async () => {
      const answers = await Promise.all(
        distinct.map((bundle, index) => publish(bundle, 'acme-concurrent', `2.0.${index}`)),
      );
      assert.deepEqual(
        answers.map((answer) => answer.status),
        distinct.map(() => 201),
      );
      const history = (await registry.request('/api/v1/deployments/acme-concurrent')).json as {
        runs: unknown[];
      };
      assert.equal(history.runs.length, distinct.length);
    });

    const refusals = refusalsOf({ publish, registry: () => registry, token: () => token });

    for (const refusal of refusals)
      test(`refused, nothing stored, still serving: ${refusal.name}`, async () => {
        const before = await storedCounts(registry.backend.db);
        const answer = await refusal.send();
        assert.equal(answer.status, refusal.status, JSON.stringify(answer.json));
        assert.equal(answer.json.error?.code, refusal.code);
        assert.match(answer.json.error?.message ?? '', refusal.message);
        assert.deepEqual(await storedCounts(registry.backend.db), before);
        assert.equal((await registry.request('/api/v1/deployments')).status, 200);
      });

    test('a publish cut off mid-upload leaves nothing behind', async () => {
      const before = await storedCounts(registry.backend.db);
      const body = Buffer.from(
        uploadOf(
          makeBundle({ key: vendor.privateKey, startedAt: new Date('2026-09-01T00:00:00Z') }),
          'acme-prod',
          '9.2.0',
        ),
      );
      await new Promise<void>((resolve, reject) => {
        const socket = connect(
          {
            host: '127.0.0.1',
            port: registry.registry.port,
            servername: 'localhost',
            ca: readFileSync(registry.caPath),
          },
          () => {
            socket.write(
              `POST /api/v1/runs HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
            );
            socket.write(body.subarray(0, body.length - 100), () => {
              socket.destroy();
              resolve();
            });
          },
        );
        socket.once('error', reject);
      });
      // The server sees the close; give it a moment, then ask it something.
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal((await registry.request('/api/v1/deployments')).status, 200);
      assert.deepEqual(await storedCounts(registry.backend.db), before);
    });

    test('a publisher added or a token replaced counts without a restart; a publishers file that does not read accepts no token', async () => {
      // A token the registry knows gets past authentication to the upload's type (415 with no
      // body); one it does not is 401.
      const statusAs = async (as: string) =>
        (await registry.request('/api/v1/runs', { method: 'POST', token: as })).status;
      const file = registry.publishersFile;
      const saved = readFileSync(file, 'utf8');
      const first = addPublisher(file, 'newcomer', []).token;
      registry.tokens.set('newcomer', first);
      assert.equal(await statusAs(first), 415, 'a publisher added while the registry runs');
      const replacement = addPublisher(file, 'newcomer', []).token;
      registry.tokens.set('newcomer, again', replacement);
      assert.equal(await statusAs(first), 401, 'a replaced token stops working at once');
      assert.equal(await statusAs(replacement), 415);
      writeFileSync(file, '{ "publishers": [');
      assert.equal(await statusAs(token), 401, 'no token while the file does not read');
      assert.ok(
        registry.logs.some((line) => line.includes('is not JSON') && line.includes('No token is accepted')),
        registry.logs.join('\n'),
      );
      writeFileSync(file, saved);
      assert.equal(await statusAs(token), 415, 'accepted again once the file reads');
      rmSync(file);
      assert.equal(await statusAs(token), 401, 'no token while the file is gone');
      assert.ok(
        registry.logs.some((line) => line.includes('is gone')),
        registry.logs.join('\n'),
      );
      writeFileSync(file, saved);
      assert.equal(await statusAs(token), 415);
    });

    test('no token, and no token digest, is in any log line, page or answer', async () => {
      const pages = await Promise.all(
        [
          '/',
          '/deployments/acme-prod',
          '/runs/1',
          '/api/v1/deployments',
          '/api/v1/runs/1',
          '/badge/acme-prod.svg',
        ].map(async (path) => (await registry.request(path)).text),
      );
      const everything = [...registry.logs, ...answers, ...pages].join('\n');
      assert.ok(registry.logs.length > 20, 'the registry logged its requests');
      for (const secret of registry.tokens.values()) {
        assert.equal(everything.includes(secret), false);
        assert.equal(everything.includes(tokenDigest(secret)), false);
      }
      // Nor the made-up token of the "unknown token" refusal: a token is never echoed.
      assert.doesNotMatch(everything, /tacr_[A-Za-z0-9_-]{43}/);
    });
  });
}
