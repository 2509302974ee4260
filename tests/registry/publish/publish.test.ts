// Publishing to the registry over HTTPS, on the embedded database and on a PostgreSQL server: a
// bundle verified on arrival by the code of `verify` with the publisher's own keys is stored with
// its facts; the same bundle twice is one run; concurrent publishes lose nothing; every bad input
// is a 4xx naming the problem, nothing is stored, and the registry goes on serving; a publish cut
// off mid-upload leaves nothing; no token is ever in a log line, a page or an answer.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { connect } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signEnvelope } from '../../../conformance/attestation/dsse.ts';
import { keyFingerprint } from '../../../conformance/attestation/signing-key.ts';
import { storedCounts } from '../../../registry/store/runs.ts';
import { tokenDigest } from '../../../registry/publish/publishers.ts';
import { uploadOf } from '../../../registry/publish/upload.ts';
import { BACKENDS, stopBackends } from '../support/backends.ts';
import { HTTP_RULES, MUST_RULES, keyPair, makeBundle, removeBundles } from '../support/bundles.ts';
import { startTestRegistry, type TestRegistry } from '../support/registry.ts';

after(() => removeBundles());
const vendor = keyPair();
const other = keyPair();
const stranger = keyPair();
const sha256 = (bytes: Buffer | string): string => createHash('sha256').update(bytes).digest('hex');

// Made once for both backends.
const conformant = makeBundle({ key: vendor.privateKey });
const distinct = Array.from({ length: 8 }, (_, index) =>
  makeBundle({ key: vendor.privateKey, startedAt: new Date(Date.UTC(2026, 10, 1, index)) }),
);
const failingHttp = makeBundle({ key: vendor.privateKey, failing: [HTTP_RULES[0] ?? ''] });
const unsigned = makeBundle({});
const byStranger = makeBundle({ key: stranger.privateKey });
const byOtherPublisher = makeBundle({ key: other.privateKey });
const forSecrets = makeBundle({ key: vendor.privateKey, startedAt: new Date('2026-10-01T00:00:00Z') });

function copy(directory: string): string {
  const target = join(mkdtempSync(join(tmpdir(), 'registry-forged-')), 'bundle');
  cpSync(directory, target, { recursive: true });
  return target;
}

/** A forged report: the verdict flipped, every digest and the signature made again with the vendor's key. */
function forged(): string {
  const directory = copy(makeBundle({ key: vendor.privateKey, failing: [MUST_RULES[0] ?? ''] }));
  const report = JSON.parse(readFileSync(join(directory, 'conformance.json'), 'utf8')) as { verdict: string };
  report.verdict = 'CONFORMANT';
  writeFileSync(join(directory, 'conformance.json'), JSON.stringify(report));
  return reseal(directory);
}

/** The statement names conformance.json twice; re-signed and re-digested: only the subject check refuses it. */
function duplicatedSubject(): string {
  const directory = copy(conformant);
  const statement = JSON.parse(readFileSync(join(directory, 'statement.json'), 'utf8')) as {
    subject: unknown[];
  };
  statement.subject.push(statement.subject[0]);
  writeFileSync(join(directory, 'statement.json'), `${JSON.stringify(statement, null, 2)}\n`);
  return reseal(directory);
}

function reseal(directory: string): string {
  const statementPath = join(directory, 'statement.json');
  const statement = JSON.parse(readFileSync(statementPath, 'utf8')) as {
    subject: { name: string; digest: { sha256: string } }[];
  };
  for (const subject of statement.subject)
    subject.digest.sha256 = sha256(readFileSync(join(directory, subject.name)));
  const bytes = Buffer.from(`${JSON.stringify(statement, null, 2)}\n`);
  writeFileSync(statementPath, bytes);
  writeFileSync(
    join(directory, 'statement.dsse.json'),
    JSON.stringify(signEnvelope(bytes, vendor.privateKey), null, 2),
  );
  const names = [
    'conformance.json',
    'conformance.md',
    'conformance.html',
    'junit.xml',
    'exchanges.har',
    'badge.svg',
    'statement.json',
    'signer.pub.pem',
    'statement.dsse.json',
  ];
  writeFileSync(
    join(directory, 'SHA256SUMS'),
    names.map((name) => `${sha256(readFileSync(join(directory, name)))}  ${name}\n`).join(''),
  );
  return directory;
}

function truncated(): string {
  const directory = copy(conformant);
  truncateSync(join(directory, 'conformance.json'), 100);
  return directory;
}

interface Json {
  stored?: string;
  run?: Record<string, unknown> & { id: number };
  rules?: { ruleId: string; protocol: string; verdict: string; level: string }[];
  error?: { code: string; message: string };
}

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

    const refusals: {
      name: string;
      send: () => Promise<{ status: number; json: Json }>;
      status: number;
      code: string;
      message: RegExp;
    }[] = [
      {
        name: 'a forged report (verdict flipped, re-digested, re-signed by the vendor)',
        send: () => publish(forged(), 'acme-prod', '9.0.0'),
        status: 422,
        code: 'bundle_not_verified',
        message: /NOT VERIFIED.*conformance\.json says CONFORMANT, but its rules come to NOT CONFORMANT/,
      },
      {
        name: 'a truncated file',
        send: () => publish(truncated(), 'acme-prod', '9.0.1'),
        status: 422,
        code: 'bundle_not_verified',
        message: /conformance\.json was changed/,
      },
      {
        name: 'a duplicated subject',
        send: () => publish(duplicatedSubject(), 'acme-prod', '9.0.2'),
        status: 422,
        code: 'bundle_not_verified',
        message: /names conformance\.json twice/,
      },
      {
        name: 'an unknown signer',
        send: () => publish(byStranger, 'acme-prod', '9.0.3'),
        status: 403,
        code: 'signer_not_trusted',
        message: new RegExp(`signed by ${keyFingerprint(stranger.publicKey)}, which is not a key of acme`),
      },
      {
        name: "another publisher's key (a token is bound to its own keys)",
        send: () => publish(byOtherPublisher, 'acme-prod', '9.0.4'),
        status: 403,
        code: 'signer_not_trusted',
        message: /not a key of acme/,
      },
      {
        name: 'an unsigned bundle',
        send: () => publish(unsigned, 'acme-prod', '9.0.5'),
        status: 422,
        code: 'bundle_unsigned',
        message: /not signed: run with --sign-key/,
      },
      {
        name: 'an oversized bundle',
        send: async () => {
          const body = JSON.parse(uploadOf(conformant, 'acme-prod', '9.0.6')) as {
            files: Record<string, string>;
          };
          body.files['exchanges.har'] = Buffer.alloc(600 * 1024, 'x').toString('base64');
          const answer = await registry.request('/api/v1/runs', {
            method: 'POST',
            body: JSON.stringify(body),
            token,
          });
          return { status: answer.status, json: answer.json as Json };
        },
        status: 413,
        code: 'bundle_too_large',
        message: /larger than this registry's bound of 524288 bytes/,
      },
      {
        name: 'a body cut short',
        send: async () => {
          const body = uploadOf(conformant, 'acme-prod', '9.0.7');
          const answer = await registry.request('/api/v1/runs', {
            method: 'POST',
            body: body.slice(0, body.length / 2),
            token,
          });
          return { status: answer.status, json: answer.json as Json };
        },
        status: 400,
        code: 'bad_upload',
        message: /not JSON \(cut short\?\)/,
      },
      {
        name: 'a SQL-looking deployment name',
        send: () => publish(conformant, "acme'; DROP TABLE runs;--", '9.0.8'),
        status: 400,
        code: 'bad_upload',
        message: /"deployment" must be a name of lower-case letters/,
      },
      {
        name: 'a SQL-looking version',
        send: () => publish(conformant, 'acme-prod', "1' OR '1'='1"),
        status: 400,
        code: 'bad_upload',
        message: /"version" must be a version label/,
      },
      {
        name: 'a file name that is a path',
        send: async () => {
          const body = JSON.parse(uploadOf(conformant, 'acme-prod', '9.0.9')) as {
            files: Record<string, string>;
          };
          body.files['../escape'] = 'AAAA';
          const answer = await registry.request('/api/v1/runs', {
            method: 'POST',
            body: JSON.stringify(body),
            token,
          });
          return { status: answer.status, json: answer.json as Json };
        },
        status: 400,
        code: 'bad_upload',
        message: /"\.\.\/escape", which is not a file name of a bundle/,
      },
      {
        name: 'a private key inside the bundle',
        send: () => {
          const directory = copy(forSecrets);
          writeFileSync(
            join(directory, 'notes.txt'),
            '-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEI\n-----END PRIVATE KEY-----\n',
          );
          return publish(directory, 'acme-prod', '9.1.0');
        },
        status: 422,
        code: 'secret_in_bundle',
        message: /notes\.txt holds a secret/,
      },
      {
        name: 'a registry token inside the bundle (anyone’s)',
        send: () => {
          const directory = copy(forSecrets);
          writeFileSync(join(directory, 'token.txt'), `tacr_${'C'.repeat(43)}\n`);
          return publish(directory, 'acme-prod', '9.1.0');
        },
        status: 422,
        code: 'secret_in_bundle',
        message: /token\.txt holds a secret \(a private key or a registry token\)/,
      },
      {
        name: 'a path with a malformed percent-encoding',
        send: async () => {
          const answer = await registry.request('/deployments/%E0%A4%A');
          return { status: answer.status, json: answer.json as Json };
        },
        status: 400,
        code: 'bad_path',
        message: /malformed percent-encoding/,
      },
      {
        name: 'a malformed token',
        send: () => publish(conformant, 'acme-prod', '9.1.1', 'not a token'),
        status: 401,
        code: 'malformed_token',
        message: /is not "Bearer tacr_"/,
      },
      {
        name: 'an unknown token',
        send: () => publish(conformant, 'acme-prod', '9.1.2', `tacr_${'A'.repeat(43)}`),
        status: 401,
        code: 'unknown_token',
        message: /not one of this registry's publishers/,
      },
      {
        name: 'a reader’s token (no signing key)',
        send: () => publish(conformant, 'acme-prod', '9.1.3', registry.tokens.get('auditor')),
        status: 403,
        code: 'not_a_publisher',
        message: /auditor may read but not publish/,
      },
      {
        name: "another publisher's deployment",
        send: () => publish(byOtherPublisher, 'acme-prod', '9.1.4', registry.tokens.get('globex')),
        status: 403,
        code: 'deployment_owned',
        message: /"acme-prod" is published by another publisher/,
      },
    ];

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
