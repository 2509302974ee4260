// `npm run bench`: the reference server under load from a separate process, against a bare
// node:https baseline and over HTTP/2 against a bare node:http2 one, then new-connection rates,
// scaling with keys and tenants, and start-up time. Writes bench/results.md and prints it. Every
// target is 127.0.0.1; every run is bounded by its duration (the whole takes about eight minutes).
// BENCH_SECONDS changes the length of one keep-alive run (default 5). `npm run bench --
// --startup-only` measures only the start-up rows (tsx and compiled), `--http2-only` only the
// HTTP/2 rows, and each replaces its section of results.md. Over 300 lines on purpose: it is
// the bench's running order, one function per section read top to bottom; what each section
// prints is in report.ts and the *-section.ts files.
import { cpus, loadavg, tmpdir } from 'node:os';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { format, resolveConfig } from 'prettier';
import { DEFAULT_FIXTURES_FILE, loadFixtures } from '../reference-server/store/fixtures.ts';
import { apiHostname } from '../reference-server/http/hosts.ts';
import { LoadChild, ServerChild, type Autocannon, type HandshakeLoop } from './children.ts';
import { generateFixtures, type ScaleSpec } from './generate-fixtures.ts';
import { HTTP2_KEEP_ALIVE, type HandshakeRequest, type HandshakeResult } from './protocol.ts';
import {
  DOMAIN,
  KEEP_ALIVE,
  UNKNOWN_KEY,
  answerName,
  byteDifferences,
  fixtureSecret,
  keepAliveRequest,
  keepAliveScenarios,
  measureLoad,
  rotated,
  verifiedAnswer,
  mirrorOnBare,
  type Answer,
  type Scenario,
} from './keep-alive.ts';
import { measureHttp2KeepAlive, type Http2Settings } from './http2-keep-alive.ts';
import {
  HTTP2_HEADING,
  KEEP_ALIVE_HEADING,
  http2KeepAliveSection,
  renderResults,
  type HandshakeRow,
  type KeepAliveRow,
  type Measured,
  type ScalingRow,
} from './report.ts';
import { replaceSection, startupSection, STARTUP_HEADING } from './startup-section.ts';
import { positiveNumber } from './env-settings.ts';
import { compileForBench, measureStartup } from './startup.ts';
import { measureConformance, measureFloor } from './conformance-timing.ts';

const SECONDS = positiveNumber('BENCH_SECONDS') ?? 5;
const SETTINGS = {
  ...KEEP_ALIVE,
  // Many short alternating rounds rather than a few long ones: the machine is shared, and the
  // ratio of the two runs of one round is steadier than either number alone.
  rounds: 5,
  keepAliveSeconds: Math.max(1, Math.round(SECONDS * 0.6)),
  scalingSeconds: Math.max(1, Math.round(SECONDS * 0.6)),
  handshakeMs: SECONDS * 1000,
  handshakeConcurrency: 8,
  startupRuns: 3,
  conformanceRuns: 3,
};
const RESULTS_FILE = join(import.meta.dirname, 'results.md');

const SCALES: readonly ScaleSpec[] = [
  { name: '1 key', tenants: 1, keysPerTenant: 1 },
  { name: '1 000 keys', tenants: 10, keysPerTenant: 100 },
  { name: '100 000 keys', tenants: 100, keysPerTenant: 1_000 },
  { name: '1 000 tenants', tenants: 1_000, keysPerTenant: 2 },
  { name: '10 000 tenants', tenants: 10_000, keysPerTenant: 2 },
];

async function main(): Promise<void> {
  const began = performance.now();
  const loadBefore = loadavg()
    .map((value) => value.toFixed(2))
    .join(', ');
  const certDir = mkdtempSync(join(tmpdir(), 'bench-certs-'));
  const autocannon: Autocannon = new LoadChild('load-process.ts', 'autocannon');
  const handshakes: HandshakeLoop = new LoadChild('handshake-process.ts', 'TLS connection loop');
  try {
    const fixtures = loadFixtures(DEFAULT_FIXTURES_FILE);
    const scenarios = keepAliveScenarios(fixtures);
    // The compiled server is what users run; tsx what `npm start` runs in a clone. Both are
    // measured, in the same rounds as one bare baseline.
    compileForBench();
    const reference = await ServerChild.start(
      { kind: 'reference', certDir, build: 'compiled' },
      'reference server (compiled)',
    );
    const referenceTsx = await ServerChild.start(
      { kind: 'reference', certDir, build: 'tsx' },
      'reference server (tsx)',
    );
    const bare = await ServerChild.start(
      { kind: 'bare', certDir, tenantIds: fixtures.tenants.map((tenant) => tenant.id) },
      'bare server',
    );
    const ca = readFileSync(join(certDir, 'ca.crt'), 'utf8');
    const host = apiHostname('acme', 'production', DOMAIN);

    progress('keep-alive runs: reference (compiled and tsx) and bare, in turn');
    const keepAlive: KeepAliveRow[] = [];
    for (const scenario of scenarios) {
      // One request with a verifying client: the answer every load request must get, and proof
      // that the certificate autocannon does not check is one a client trusts.
      const expected = await verifiedAnswer(reference.port, host, ca, scenario.authorization);
      const expectedTsx = await verifiedAnswer(referenceTsx.port, host, ca, scenario.authorization);
      const differences = byteDifferences(expected, expectedTsx);
      if (differences.length > 0)
        throw new Error(
          `The compiled and tsx servers answer "${scenario.name}" differently: ${differences.join('; ')}.`,
        );
      await mirrorOnBare(bare, expected, scenario, host, ca);
      const runs = { compiled: [] as Measured[], tsx: [] as Measured[], bare: [] as Measured[] };
      const targets = [
        ['compiled', reference],
        ['tsx', referenceTsx],
        ['bare', bare],
      ] as const;
      for (let round = 0; round < SETTINGS.rounds; round += 1) {
        // A different one goes first in each round, so that none always runs after another.
        for (const [target, server] of rotated(targets, round)) {
          const loadRequest = keepAliveRequest(
            server.port,
            host,
            scenario,
            expected,
            SETTINGS.keepAliveSeconds,
          );
          runs[target].push(await measureLoad(autocannon, server, loadRequest));
        }
      }
      const load = loadNow();
      for (const server of ['compiled', 'tsx'] as const)
        keepAlive.push({
          scenario: scenario.name,
          server,
          answer: answerName(expected),
          reference: runs[server],
          bare: runs.bare,
          load,
        });
      progress(`  ${scenario.name}: done`);
    }

    progress('HTTP/2 keep-alive runs: reference (compiled) and bare node:http2, in turn');
    const http2KeepAlive = await measureHttp2KeepAlive(
      reference,
      scenarios,
      http2Settings(certDir, ca, host),
    );

    progress('new TLS connections');
    const okScenario = scenarios[0] ?? { name: '' };
    const okAnswer = await verifiedAnswer(reference.port, host, ca, okScenario.authorization);
    await mirrorOnBare(bare, okAnswer, okScenario, host, ca);
    const handshakeRows: HandshakeRow[] = [];
    for (const [target, server, resumption] of [
      ['reference', reference, true],
      ['reference', reference, false],
      ['bare', bare, true],
      ['bare', bare, false],
    ] as const) {
      const result = await handshakes.run(
        handshakeRequest(server.port, host, ca, okScenario.authorization, resumption, SETTINGS.handshakeMs),
      );
      handshakeRows.push({ target, resumption, result, load: loadNow() });
    }
    await Promise.all([reference.stop(), referenceTsx.stop(), bare.stop()]);

    progress('scaling');
    const scaling: ScalingRow[] = [];
    for (const spec of SCALES) scaling.push(await measureScale(spec, autocannon, handshakes));

    progress('start-up');
    const startup = await measureStartup(
      `Bearer ${fixtureSecret(fixtures, 'key_acme_prod_full')}`,
      host,
      SETTINGS.startupRuns,
    );

    progress('conformance runs');
    const conformance = await measureConformance(SETTINGS.conformanceRuns, progress);
    progress("conformance runs against Playwright's floor");
    const floor = await measureFloor(SETTINGS.conformanceRuns);

    const results = renderResults({
      date: new Date().toISOString(),
      machine: `${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}, ${process.platform}`,
      settings:
        `${SETTINGS.connections} connections (HTTP/2: ${HTTP2_KEEP_ALIVE.sessions} sessions × ${HTTP2_KEEP_ALIVE.streamsPerSession} streams), ` +
        `${SETTINGS.keepAliveSeconds} s per keep-alive run after ${SETTINGS.warmupSeconds} s of warm-up, ` +
        `${SETTINGS.rounds} rounds; scaling runs ${SETTINGS.scalingSeconds} s; TLS connection runs ${SETTINGS.handshakeMs / 1000} s with ` +
        `${SETTINGS.handshakeConcurrency} concurrent clients; ${SETTINGS.startupRuns} start-ups each; ` +
        `${SETTINGS.conformanceRuns} conformance runs each`,
      loadBefore,
      loadAfter: loadavg()
        .map((value) => value.toFixed(2))
        .join(', '),
      keepAlive,
      http2KeepAlive,
      handshakes: handshakeRows,
      scaling,
      startup,
      conformance,
      floor,
      durationSeconds: (performance.now() - began) / 1000,
    });
    // Formatted as the repository formats Markdown, so that the committed file passes the format check.
    const formatted = await format(results, { ...(await resolveConfig(RESULTS_FILE)), parser: 'markdown' });
    writeFileSync(RESULTS_FILE, formatted);
    console.log(formatted);
    console.log(`Written to ${RESULTS_FILE}`);
  } finally {
    autocannon.stop();
    handshakes.stop();
    rmSync(certDir, { recursive: true, force: true });
  }
}

async function measureScale(
  spec: ScaleSpec,
  autocannon: Autocannon,
  handshakes: HandshakeLoop,
): Promise<ScalingRow> {
  const keys = spec.tenants * spec.keysPerTenant;
  const certDir = mkdtempSync(join(tmpdir(), 'bench-scale-certs-'));
  let server: ServerChild | undefined;
  try {
    server = await ServerChild.start(
      { kind: 'reference', certDir, scale: spec, build: 'compiled' },
      `reference server with ${spec.name}`,
    );
    const started = await server.usage();
    const { target } = generateFixtures(spec);
    const host = apiHostname(target.tenant, 'production', DOMAIN);
    const ca = readFileSync(join(certDir, 'ca.crt'), 'utf8');
    const valid = await verifiedAnswer(server.port, host, ca, `Bearer ${target.secret}`);
    const unknown = await verifiedAnswer(server.port, host, ca, `Bearer ${UNKNOWN_KEY}`);
    const run = (scenario: Scenario, expected: Answer): Promise<Measured> =>
      measureLoad(
        autocannon,
        server as ServerChild,
        keepAliveRequest(server?.port ?? 0, host, scenario, expected, SETTINGS.scalingSeconds),
      );
    const ok = await run({ name: 'valid', authorization: `Bearer ${target.secret}` }, valid);
    const invalid = await run({ name: 'unknown', authorization: `Bearer ${UNKNOWN_KEY}` }, unknown);
    const connections: HandshakeResult = await handshakes.run(
      handshakeRequest(
        server.port,
        host,
        ca,
        `Bearer ${target.secret}`,
        false,
        SETTINGS.scalingSeconds * 1000,
      ),
    );
    const after = await server.usage();
    progress(`  ${spec.name}: done`);
    return {
      name: spec.name,
      tenants: spec.tenants,
      keys,
      fixturesMs: server.ready.fixturesMs ?? 0,
      serverStartMs: server.ready.serverStartMs ?? 0,
      rssBytes: started.rss,
      heapBytes: started.heapUsed,
      rssAfterBytes: after.rss,
      ok,
      invalid,
      handshakes: connections,
      load: loadNow(),
    };
  } catch (error) {
    progress(`  ${spec.name}: failed`);
    return { name: spec.name, tenants: spec.tenants, keys, error: firstLine(error), load: loadNow() };
  } finally {
    await server?.stop();
    rmSync(certDir, { recursive: true, force: true });
  }
}

function handshakeRequest(
  port: number,
  host: string,
  ca: string,
  authorization: string | undefined,
  resumeSessions: boolean,
  durationMs: number,
): HandshakeRequest {
  const lines = [`GET /v1/customers HTTP/1.1`, `Host: ${host}:${port}`, 'Connection: close'];
  if (authorization) lines.push(`Authorization: ${authorization}`);
  return {
    port,
    servername: host,
    request: `${lines.join('\r\n')}\r\n\r\n`,
    ca,
    concurrency: SETTINGS.handshakeConcurrency,
    durationMs,
    resumeSessions,
  };
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
}

/** The 1-minute load average now, written next to each measurement: other work shares the cores. */
function loadNow(): number {
  return loadavg()[0] ?? 0;
}

function progress(text: string): void {
  console.error(`[bench] ${text}`);
}

function http2Settings(certDir: string, ca: string, host: string): Http2Settings {
  return {
    certDir,
    ca,
    host,
    rounds: SETTINGS.rounds,
    seconds: SETTINGS.keepAliveSeconds,
    loadNow,
    progress,
  };
}

/** Replaces (or adds, after the section under `after`) one section of results.md and prints it. */
async function writeSection(heading: string, section: string, what: string, after?: string): Promise<void> {
  const updated = replaceSection(readFileSync(RESULTS_FILE, 'utf8'), heading, section, after);
  const formatted = await format(updated, { ...(await resolveConfig(RESULTS_FILE)), parser: 'markdown' });
  writeFileSync(RESULTS_FILE, formatted);
  console.log(section);
  console.log(`Written to ${RESULTS_FILE} (${what} section only)`);
}

/** `npm run bench -- --startup-only`: the start-up section alone, replaced in results.md. */
async function startupOnly(): Promise<void> {
  const began = { date: new Date().toISOString(), load: loadNow() };
  const fixtures = loadFixtures(DEFAULT_FIXTURES_FILE);
  const host = apiHostname('acme', 'production', DOMAIN);
  progress('start-up');
  const rows = await measureStartup(
    `Bearer ${fixtureSecret(fixtures, 'key_acme_prod_full')}`,
    host,
    SETTINGS.startupRuns,
  );
  await writeSection(STARTUP_HEADING, startupSection(rows, began).join('\n'), 'start-up');
}

/** `npm run bench -- --http2-only`: the HTTP/2 keep-alive section alone, replaced in results.md. */
async function http2Only(): Promise<void> {
  const began = { date: new Date().toISOString(), load: loadNow() };
  const certDir = mkdtempSync(join(tmpdir(), 'bench-certs-'));
  let reference: ServerChild | undefined;
  try {
    compileForBench();
    reference = await ServerChild.start(
      { kind: 'reference', certDir, build: 'compiled' },
      'reference server (compiled)',
    );
    progress('HTTP/2 keep-alive runs: reference (compiled) and bare node:http2, in turn');
    const rows = await measureHttp2KeepAlive(
      reference,
      keepAliveScenarios(loadFixtures(DEFAULT_FIXTURES_FILE)),
      http2Settings(
        certDir,
        readFileSync(join(certDir, 'ca.crt'), 'utf8'),
        apiHostname('acme', 'production', DOMAIN),
      ),
    );
    await writeSection(
      HTTP2_HEADING,
      http2KeepAliveSection(rows, began).join('\n'),
      'HTTP/2',
      KEEP_ALIVE_HEADING,
    );
  } finally {
    await reference?.stop();
    rmSync(certDir, { recursive: true, force: true });
  }
}

const only = process.argv.includes('--startup-only')
  ? startupOnly
  : process.argv.includes('--http2-only')
    ? http2Only
    : main;
only().catch((error: unknown) => {
  console.error(`bench: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
