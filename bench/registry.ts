// `npm run bench:registry`: the registry's costs a user waits on, on the embedded database
// (PGlite) and on a PostgreSQL server (Debian's, a throwaway cluster on loopback, fsync off):
//   - publish throughput (publishThroughput of bench/registry-publish.ts, which also measures the
//     memory under uploads: the sections of the results file it writes are kept as they are here);
//   - can-i-ship latency with 10 000 stored runs (100 deployments × 100 versions, every rule's
//     outcomes per protocol), as the query the API runs and as the HTTPS call, against the floor: a
//     bare SELECT of the same row by the same index.
// Bundles are made before the clock starts. It writes bench/registry-results.md.
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { canIShip } from '../registry/ask/can-i-ship.ts';
import { BACKENDS, stopBackends, type Backend } from '../tests/registry/support/backends.ts';
import { keyPair, makeBundle, removeBundles } from '../tests/registry/support/bundles.ts';
import { publishSection, publishThroughput, sectionOf, type Throughput } from './registry-publish.ts';
import { startTestRegistry, type TestRegistry } from '../tests/registry/support/registry.ts';
import { seedRuns } from '../tests/registry/support/seed.ts';
import { readsSection } from './registry-scale.ts';

const STORED_RUNS = 10_000;
const DEPLOYMENTS = 100;
const QUERIES = 400;
const RESULTS = join(import.meta.dirname, 'registry-results.md');

const vendor = keyPair();

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

async function timed(
  count: number,
  once: (index: number) => Promise<unknown>,
): Promise<{ median: number; p95: number }> {
  const times: number[] = [];
  for (let index = 0; index < count; index++) {
    const started = performance.now();
    await once(index);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { median: percentile(times, 50), p95: percentile(times, 95) };
}

interface Latency {
  floor: { median: number; p95: number };
  query: { median: number; p95: number };
  http: { median: number; p95: number };
  /** An HTTPS answer that reads no database (an unknown API path, 404) over the same connection. */
  httpFloor: { median: number; p95: number };
  seedSeconds: number;
}

/** A registry with one published run, the template the seeded runs copy. */
async function registryWithTemplate(backend: Backend): Promise<{ registry: TestRegistry; template: number }> {
  const registry = await startTestRegistry(backend, { acme: [vendor.publicPem] });
  const published = await registry.publish(
    makeBundle({ key: vendor.privateKey }),
    'template',
    '0.0.1',
    registry.tokens.get('acme') ?? '',
  );
  return { registry, template: (published.json as { run: { id: number } }).run.id };
}

async function canIShipLatency(backend: Backend): Promise<Latency> {
  const { registry, template } = await registryWithTemplate(backend);
  const db = registry.backend.db;
  // 10 000 runs copied from the published one by SQL, each with the template's rule outcomes.
  const seedSeconds = await seedRuns(db, {
    prefix: 'bench-',
    deployments: DEPLOYMENTS,
    runs: STORED_RUNS,
    template,
  });
  const question = (index: number) => ({
    deployment: `bench-${index % DEPLOYMENTS}`,
    version: `1.0.${index % 97}`,
  });
  await timed(50, (index) => canIShip(db, question(index))); // warm-up
  const floor = await timed(QUERIES, (index) => {
    const { deployment, version } = question(index);
    return db.query(
      'SELECT id, verdict FROM runs WHERE deployment = $1 AND version = $2 ORDER BY id DESC LIMIT 1',
      [deployment, version],
    );
  });
  const query = await timed(QUERIES, async (index) => {
    const answer = await canIShip(db, question(index));
    if (!answer.ship) throw new Error(answer.reason);
  });
  const http = await timed(QUERIES, async (index) => {
    const answer = await registry.request(
      `/api/v1/can-i-ship?${new URLSearchParams(question(index)).toString()}`,
    );
    if (!(answer.json as { ship: boolean }).ship) throw new Error(answer.text);
  });
  const httpFloor = await timed(QUERIES, () => registry.request('/api/v1/no-such-path'));
  await registry.close();
  return { floor, query, http, httpFloor, seedSeconds };
}

const ms = (value: number): string => `${value.toFixed(2)} ms`;

const publishRows: { backend: Backend; throughput: Throughput }[] = [];
const latencyRows: string[] = [];
for (const backend of BACKENDS) {
  const throughput = await publishThroughput(backend);
  publishRows.push({ backend, throughput });
  const latency = await canIShipLatency(backend);
  latencyRows.push(
    `| ${backend} | ${ms(latency.floor.median)} / ${ms(latency.floor.p95)} | ${ms(latency.query.median)} / ${ms(latency.query.p95)} | ${(latency.query.median / latency.floor.median).toFixed(1)}× | ${ms(latency.http.median)} / ${ms(latency.http.p95)} | ${ms(latency.httpFloor.median)} / ${ms(latency.httpFloor.p95)} | ${latency.seedSeconds.toFixed(1)} s |`,
  );
  console.log(backend, throughput, latency);
}
await stopBackends();
removeBundles();

// The memory under uploads is bench/registry-publish.ts's to measure, the reads at scale and under a
// crowd bench:registry-reads' (bench/registry-reads.ts: registry, crowd and client in processes of
// their own): both sections are kept as they stand.
const previous = readFileSync(RESULTS, 'utf8');
const memoryKept = sectionOf(previous, '## Memory under');
const reads = readsSection(previous);
writeFileSync(
  RESULTS,
  `# Registry: publish throughput and can-i-ship latency

Written by \`npm run bench:registry\` (bench/registry.ts) on ${new Date().toISOString().slice(0, 10)}, Node ${process.version},
${cpus().length} CPUs (${cpus()[0]?.model.trim() ?? 'unknown'}), a machine shared with other work: compare the rows of
one run with each other, not with another machine's.

${publishSection(publishRows)}
## can-i-ship with ${STORED_RUNS.toLocaleString('en')} stored runs (median / p95 of ${QUERIES})

${STORED_RUNS.toLocaleString('en')} runs over ${DEPLOYMENTS} deployments × 100 versions, every run with its rule
outcomes (about ${(STORED_RUNS * 130).toLocaleString('en')} rows), seeded by SQL from one published run.
Floor: a bare \`SELECT id, verdict FROM runs WHERE deployment = $1 AND version = $2 ORDER BY id
DESC LIMIT 1\` through the same connection. can-i-ship (query): \`canIShip\`, the deployment check
and the version's runs with every column, judged in TypeScript. HTTPS: the API call, a keep-alive
connection from the same process; HTTPS floor: a 404 of the same server that reads no database,
over the same connection. The HTTPS call costs about the query plus the HTTPS floor. In the
embedded registry the HTTPS floor itself is higher once 10 000 runs are stored (not profiled further): PGlite's database
lives in the server's own process (its WebAssembly memory and its work on the same event loop), so
every answer pays for it; a PostgreSQL server keeps that cost in its own processes.

| database | floor | can-i-ship (query) | query ÷ floor | can-i-ship (HTTPS) | HTTPS floor | seeding |
|---|---|---|---|---|---|---|
${latencyRows.join('\n')}

${memoryKept}
${reads ? `\n${reads}\n` : ''}`,
);
console.log(`Wrote ${RESULTS}`);
