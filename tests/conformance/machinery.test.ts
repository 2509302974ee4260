// The suite's own pieces, each on its own: redaction, host mapping, leak detection, key variants,
// the CONNECT proxy and CA trust.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { once } from 'node:events';
import { connect, type AddressInfo } from 'node:net';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Redactor, REDACTED } from '../../conformance/redaction/secrets.ts';
import { mappedAddress } from '../../conformance/requests/host-map.ts';
import {
  distinctiveValues,
  leakedValues,
  withoutShared,
} from '../../conformance/judging/tenant-knowledge.ts';
import { alteredKeys, unknownKeyLike } from '../../conformance/judging/key-variants.ts';
import { startConnectProxy, PROXY_ERROR_HEADER } from '../../conformance/requests/connect-proxy.ts';
import { caBundleFor } from '../../conformance/requests/ca-trust.ts';
import { BATCH_QUIET_FIXTURES, KIT_FIXTURE_BOX } from '../../conformance/run/batch-quiet-fixtures.ts';
import { batchVariantNames } from '../../conformance/run/batch-variants.ts';
import { handOverVariables } from '../../conformance/env.ts';
import { scratchDirectory } from '../support/scratch.ts';

const KEY = 'mbk_prod_EHUEYGExFL9eKl61mpA1K6lMRQu5UCAA';

test('the Redactor masks a key and every near form of it, and nothing else', () => {
  const redactor = new Redactor([KEY]);
  for (const form of [
    KEY,
    `"${KEY}"`,
    KEY.slice(0, -1),
    `${KEY}x`,
    KEY.toLowerCase(),
    encodeURIComponent(KEY),
    Buffer.from(`${KEY}:`).toString('base64'),
    KEY.slice(9),
  ]) {
    const redacted = redactor.redact(`Authorization: Bearer ${form} end`);
    assert.ok(!redacted.includes(form.replace(/"/g, '')), `${form} must be masked: ${redacted}`);
    assert.ok(redacted.includes(REDACTED));
  }
  const innocent = 'GET https://acme.api.localhost:8443/v1/customers 401 missing_authorization_header';
  assert.equal(redactor.redact(innocent), innocent);
  assert.equal(new Redactor([]).redact(KEY), KEY);
});

test('host patterns map names DNS does not resolve; the most specific pattern wins', () => {
  const hosts = { '*.localhost': '127.0.0.1', '*.api.localhost': '127.0.0.2', 'exact.example': '::1' };
  assert.equal(mappedAddress('acme.api.localhost', hosts), '127.0.0.2');
  assert.equal(mappedAddress('ACME.localhost', hosts), '127.0.0.1');
  assert.equal(mappedAddress('exact.example', hosts), '::1');
  assert.equal(mappedAddress('localhost.example', hosts), undefined);
  assert.equal(mappedAddress('other.example', hosts), undefined);
});

test('leak detection learns distinctive values, drops shared ones, and finds them anywhere', () => {
  const acme = distinctiveValues({
    data: [{ id: 'cus_acme_1', object: 'customer', name: 'Ada Lovelace', n: 1234567, tiny: 'ab' }],
  });
  const globex = distinctiveValues({
    data: [{ id: 'cus_globex_1', object: 'customer', name: 'Ada Lovelace' }],
  });
  assert.deepEqual([...acme].sort(), ['1234567', 'Ada Lovelace', 'cus_acme_1']);
  const own = withoutShared(acme, globex);
  assert.deepEqual([...own].sort(), ['1234567', 'cus_acme_1'], 'a value both tenants have says nothing');
  const tenant = { label: 'acme', values: own };
  assert.deepEqual(leakedValues('{"error":{"code":"invalid_api_key"}}', tenant), []);
  assert.deepEqual(leakedValues('<li>cus_acme_1</li>', tenant), ['cus_acme_1']);
});

test('key variants: unknown keys keep the shape, altered keys differ from the original', () => {
  const unknown = unknownKeyLike(KEY);
  assert.equal(unknown.length, KEY.length);
  assert.ok(unknown.startsWith('mbk_prod_unknown') && unknown !== KEY, 'same prefix, marked as made up');
  assert.match(unknown, /^mbk_prod_unknown[A-Za-z0-9]{25}$/);
  assert.match(unknownKeyLike(undefined), /^unknown_[A-Za-z0-9]{32}$/);
  const altered = alteredKeys(KEY);
  assert.equal(altered.length, 4);
  for (const variant of altered) assert.notEqual(variant.key, KEY, variant.how);
});

test('the CONNECT proxy tunnels to the mapped address and marks a failed connection as its own answer', async () => {
  const upstream = createServer((_req, res) => res.end('upstream answered'));
  upstream.listen(0, '127.0.0.1');
  await once(upstream, 'listening');
  const upstreamPort = (upstream.address() as AddressInfo).port;
  const proxy = await startConnectProxy({ '*.example.test': '127.0.0.1' });
  const proxyPort = Number(new URL(proxy.url).port);
  const exchange = async (target: string, request: string): Promise<string> => {
    const socket = connect(proxyPort, '127.0.0.1');
    socket.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n${request}`);
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
    await once(socket, 'close');
    return text;
  };
  try {
    const tunnelled = await exchange(
      `acme.example.test:${upstreamPort}`,
      'GET / HTTP/1.1\r\nHost: acme.example.test\r\nConnection: close\r\n\r\n',
    );
    assert.match(tunnelled, /200 Connection Established[\s\S]*upstream answered/);
    const closedPort = await exchange('acme.example.test:1', '');
    assert.match(closedPort, new RegExp(`502 Bad Gateway\\r\\n${PROXY_ERROR_HEADER}: ECONNREFUSED`));
  } finally {
    await proxy.close();
    upstream.close();
  }
});

test('a target CA joins a CA the user already trusts instead of replacing it', () => {
  const dir = scratchDirectory('ca-trust-');
  const mine = join(dir, 'mine.pem');
  const theirs = join(dir, 'theirs.pem');
  writeFileSync(mine, 'MINE\n');
  writeFileSync(theirs, 'THEIRS\n');
  const run = join(dir, 'run');
  mkdirSync(run);
  assert.equal(caBundleFor(undefined, run, {}), undefined);
  assert.equal(caBundleFor(theirs, run, {}), theirs);
  const bundle = caBundleFor(theirs, run, { NODE_EXTRA_CA_CERTS: mine }) ?? '';
  assert.equal(readFileSync(bundle, 'utf8'), 'MINE\nTHEIRS\n');
  // In the run's directory, which the run removes, not in a temporary directory nothing removes.
  assert.equal(dirname(bundle), run);
  // A worker inherits the bundle as its own trust: asked again, it is the answer, not joined anew.
  assert.equal(caBundleFor(theirs, run, { NODE_EXTRA_CA_CERTS: bundle }), bundle);
  assert.deepEqual(readdirSync(run), ['ca-bundle.pem']);
  rmSync(dir, { recursive: true, force: true });
});

test("the rules' test replaces a fixture of Playwright's by name: that name is still Playwright's", () => {
  // conformance/run/test.ts overrides `_combinedContextOptions` (a tenth of a worker's CPU). Were
  // it renamed, the override would silently define a fixture of its own and the saving be lost.
  const playwrightFixtures = readFileSync(
    join(dirname(createRequire(import.meta.url).resolve('playwright/test')), 'lib', 'index.js'),
    'utf8',
  );
  assert.match(playwrightFixtures, /_setupArtifacts: \[async \(\{[^}]*_combinedContextOptions/);
  assert.match(
    readFileSync(new URL('../../conformance/run/test.ts', import.meta.url), 'utf8'),
    /^ {2}_combinedContextOptions: \[\{\}/m,
  );
});

test("a batch replaces Playwright's per-test recording by name: those names are still Playwright's automatic fixtures", () => {
  // conformance/run/batch-quiet-fixtures.ts overrides them in a batch (about a fifth of a batch
  // worker's CPU). Were one renamed, the override would define a fixture of its own, never used.
  const playwrightFixtures = readFileSync(
    join(dirname(createRequire(import.meta.url).resolve('playwright/test')), 'lib', 'index.js'),
    'utf8',
  );
  assert.deepEqual(Object.keys(BATCH_QUIET_FIXTURES).sort(), ['_setupArtifacts', '_setupContextOptions']);
  for (const name of Object.keys(BATCH_QUIET_FIXTURES)) {
    // Its declaration, up to its options (no other fixture's declaration in between).
    const declared = new RegExp(
      `^ {2}${name}: \\[async [^\\n]*\\n(?:(?! {2}\\w+: ).*\\n)*?^ {2}\\}, \\{ auto: "all-hooks-included"`,
      'm',
    );
    assert.match(playwrightFixtures, declared, `${name} is an automatic fixture of Playwright's`);
  }
  // What the override keeps of `_setupContextOptions`: the contexts' default time-out, as set there.
  assert.match(playwrightFixtures, /playwright\._defaultContextTimeout = actionTimeout \|\| 0;/);
  // Outside a batch (no variants handed over) Playwright's own are kept, and the kit's fixtures are steps.
  assert.equal(batchVariantNames(), undefined);
  assert.equal(KIT_FIXTURE_BOX, undefined);
  // In a process the batch's config named variants for (as its workers are), the kit's fixtures are no steps.
  const inBatch = execFileSync(
    process.execPath,
    [
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      "const { KIT_FIXTURE_BOX } = await import('./conformance/run/batch-quiet-fixtures.ts'); process.stdout.write(String(KIT_FIXTURE_BOX));",
    ],
    {
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
      env: { ...process.env, ...handOverVariables({ batchVariants: JSON.stringify(['a']) }) },
      encoding: 'utf8',
    },
  );
  assert.equal(inBatch, 'self');
});
