// The most common correct deployment shape: the reference server behind a front like nginx
// (./host-front.ts: one certificate for *.api.localhost, routing by Host, no SNI check). A
// request on a connection opened for acme with `Host: globex…` and globex's own key is served
// globex's customers there — legitimate where the certificate covers both names. The suite must
// find this deployment CONFORMANT; only the advisory 421 rule may warn, since the front answers
// an SNI/Host mismatch like any other request instead of 421. With HTTP/2 on at the front (and
// HTTP/1.1 still to the reference, as nginx talks to its upstreams) the same over each protocol.
// The two fronts are checked in one batch.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { readTargetFile } from '../../conformance/deployment/target.ts';
import { EMBEDDED_TARGET_FILE, fixtureKeyEnvironment } from '../../conformance/deployment/embedded-target.ts';
import type { Journal } from '../../schemas/generated/journal.ts';
import { batchOfDeployments } from '../support/batched-runs.ts';
import { assertConformantOverBothProtocols } from '../support/protocol-verdicts.ts';
import { cleanEnv, startCli, type CliProcess } from '../support/reference-cli.ts';
import { startHostFront, type HostFront } from './host-front.ts';
import {
  assertConformant,
  probe,
  probeH2,
  unusedPort,
  writeTargetFile,
  type Probe,
  type ProbeAnswer,
} from './run-support.ts';
import { scratchDirectory } from '../support/scratch.ts';

/** The one rule a front that routes by Host alone warns: it serves an SNI/Host mismatch, not 421. */
const ROUTES_BY_HOST = ['TENANT-SNI-HOST-MISMATCH-421'];
const ADMIN_TOKEN = `test_${randomBytes(32).toString('base64url')}`;
const keys = fixtureKeyEnvironment();
const work = scratchDirectory('host-front-');
let reference: CliProcess;
let upstream: { upstreamPort: number; upstreamCa: string };

/** The reference, started once: by the batch's start of a front or by the hook below, whichever asks first. */
let referenceStarted: Promise<typeof upstream> | undefined;
function referenceUpstream(): Promise<typeof upstream> {
  referenceStarted ??= (async () => {
    reference = startCli(
      [
        ...['--port', '0', '--http-port', 'off', '--access-log', 'off'],
        ...['--cert-dir', join(work, 'certs'), '--data-dir', 'off'],
        // Its lists page, as the embedded target's: the rule on page cursors is then evaluated.
        ...['--page-size', '2'],
      ],
      cleanEnv({ REFERENCE_ADMIN_TOKEN: ADMIN_TOKEN }),
      // It serves the whole file, both runs included: startCli's default bound (twice 60 s) ended
      // it in the middle of a loaded machine's second run, every answer then a 502 of the front.
      { timeoutMs: 600_000 },
    );
    const [, upstreamPort = ''] = await reference.waitForStdout(/Listening: https port (\d+)/);
    return {
      upstreamPort: Number(upstreamPort),
      upstreamCa: readFileSync(join(work, 'certs', 'ca.crt'), 'utf8'),
    };
  })();
  return referenceStarted;
}

before(async () => {
  upstream = await referenceUpstream();
});

after(async () => {
  reference?.kill();
  await reference?.exited;
});

/** A target file for the reference reached through `front`. */
async function targetThrough(front: HostFront, name: string): Promise<string> {
  writeFileSync(join(work, `${name}-ca.pem`), front.caPem);
  const origin = (tenant: string): string => `https://${tenant}.api.localhost:${front.port}/v1`;
  return writeTargetFile(work, `${name}.json`, {
    name: `reference behind a Host-routing front (${name})`,
    baseUrl: origin('acme'),
    otherTenantBaseUrl: origin('globex'),
    sandboxBaseUrl: origin('sandbox-acme'),
    // Like nginx configured for HTTPS only: nothing listens for plain HTTP.
    plainHttpBaseUrl: `http://acme.api.localhost:${await unusedPort()}/v1`,
    // The reference's own keys, by the variable names its embedded target file uses.
    credentials: readTargetFile(EMBEDDED_TARGET_FILE).credentials,
    caFile: `${name}-ca.pem`,
    hosts: { '*.localhost': '127.0.0.1' },
  });
}

/** The same answer but for the time it was made (Date may tick between the two). */
function withoutDate({ headers: { date: _date, ...headers }, ...answer }: ProbeAnswer): object {
  return { ...answer, headers };
}

/** Globex's key, then acme's, on a connection opened for acme with globex as its host. */
async function assertRoutedByHost(
  send: (options: Probe & { ca: string }) => Promise<ProbeAnswer>,
  front: HostFront,
): Promise<void> {
  const asGlobex = (servername: string, key: string) =>
    send({
      port: front.port,
      ca: front.caPem,
      servername,
      host: 'globex.api.localhost',
      headers: [['Authorization', `Bearer ${key}`]],
    });
  const globexKey = keys.REFERENCE_KEY_GLOBEX_PROD_FULL ?? '';
  const direct = await asGlobex('globex.api.localhost', globexKey);
  assert.equal(direct.status, 200);
  assert.deepEqual(withoutDate(await asGlobex('acme.api.localhost', globexKey)), withoutDate(direct));
  // And acme's key there gets nothing: the tenant is still the Host's, for auth and data alike.
  const acmeKey = await asGlobex('acme.api.localhost', keys.REFERENCE_KEY_ACME_PROD_FULL ?? '');
  assert.equal(acmeKey.status, 401);
  assert.equal(acmeKey.code, 'invalid_api_key');
}

/** The reference's client journal (admin API, asked directly, not through a front). */
async function journalEntries(method: 'GET' | 'DELETE' = 'GET'): Promise<Journal['data']> {
  const answer = await probe({
    port: upstream.upstreamPort,
    ca: upstream.upstreamCa,
    host: 'admin.localhost',
    path: '/v1/journal',
    method,
    headers: [['Authorization', `Bearer ${ADMIN_TOKEN}`]],
  });
  assert.equal(answer.status, 200, answer.body);
  return method === 'GET' ? (JSON.parse(answer.body) as Journal).data : [];
}

/**
 * Both fronts, started once the reference is up and checked in one batch
 * (tests/support/batched-runs.ts): each the reference's keys, by its target file's variables. The
 * file's top-level hooks start as they are registered: a front waits for the reference itself.
 */
const batch = batchOfDeployments();

/** A front before the reference, and a target file naming it. */
function frontDeployment(
  name: string,
  options: { http2?: boolean } = {},
): () => Promise<{
  front: HostFront;
  target: { file: string; env: Record<string, string> };
  close(): Promise<void>;
}> {
  return async () => {
    const front = await startHostFront({ ...(await referenceUpstream()), ...options });
    return {
      front,
      target: { file: await targetThrough(front, name), env: keys },
      close: () => front.close(),
    };
  };
}

describe('the reference server behind a front that routes by Host (nginx shape)', () => {
  const deployed = batch.add('http1', frontDeployment('http1'), { profile: 'default' });

  test('the front routes by Host: globex’s key on a connection opened for acme gets globex’s customers', () =>
    assertRoutedByHost(probe, deployed().front));

  test('--profile default: CONFORMANT, only TENANT-SNI-HOST-MISMATCH-421 warns', () => {
    assertConformant(deployed().run, ROUTES_BY_HOST);
  });
});

describe('the same front with HTTP/2 on: h2 by ALPN at the front, HTTP/1.1 to the reference', () => {
  const deployed = batch.add('http2', frontDeployment('http2', { http2: true }), {
    profile: 'strict',
    protocols: 'offered',
  });

  test('over HTTP/2 it routes by :authority and asks the reference over HTTP/1.1 with that name as Host', async () => {
    // The runs are over (the batch checks before the first test): the journal holds these alone.
    await journalEntries('DELETE');
    await assertRoutedByHost(probeH2, deployed().front);
    const entries = (await journalEntries()).filter((entry) => entry.transport === 'https');
    assert.deepEqual(
      entries.map(({ protocol, tenant, sni, status }) => ({ protocol, tenant, sni, status })),
      [
        { protocol: 'h1', tenant: 'globex', sni: 'match', status: 200 },
        { protocol: 'h1', tenant: 'globex', sni: 'match', status: 200 },
        { protocol: 'h1', tenant: 'globex', sni: 'match', status: 401 },
      ],
    );
  });

  test('--profile strict: CONFORMANT over HTTP/1.1 and HTTP/2, only TENANT-SNI-HOST-MISMATCH-421 warns, over each', () => {
    const { run } = deployed();
    assertConformant(run, ROUTES_BY_HOST);
    assertConformantOverBothProtocols(run, ROUTES_BY_HOST);
  });
});
