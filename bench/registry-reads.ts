// `npm run bench:registry-reads`: the registry's reads as the stored runs grow and under a crowd,
// on the embedded database (PGlite) and on a PostgreSQL server (Debian's, a throwaway cluster on
// loopback). Three processes: the registry (`registry serve`, as an operator runs it), the crowd
// (bench/registry-crowd-process.ts, its own processes) and the measuring client (this process),
// so what is measured is the registry, not a crowd's TLS on the same event loop.
// At 1 000, 10 000 and 100 000 runs (seeded by SQL while the registry is stopped, each step on the
// one before): the HTTPS floor (a 404 that reads no database), can-i-ship, the badge of a known and
// of an unknown deployment, `/` and a deployment's page, then can-i-ship alone and while the crowd
// loads pages. It writes its section of bench/registry-results.md (between its markers). Every
// loop and wait is bounded; loopback only.
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { Agent, fetch } from 'undici';
import { openEmbedded, openServer, type Database } from '../registry/database/database.ts';
import { migrate } from '../registry/database/migrations.ts';
import { seedRuns } from '../tests/registry/support/seed.ts';
import { startPostgres } from '../tests/registry/support/postgres-server.ts';
import { scratchDirectory } from '../tests/support/scratch.ts';
import { READS_END, READS_START, spread, withReadsSection, type Spread } from './registry-scale.ts';
import { startCrowd, startRegistryProcess } from './registry-processes.ts';
import { DEFAULT_PAGES_AT_ONCE } from '../registry/http/server.ts';

const SCALES = (process.env.BENCH_SCALES ?? '1000,10000,100000').split(',').map(Number);
const DEPLOYMENTS = 100;
const SAMPLES = 100;
const PREFIX = 's';
const CROWD_PROCESSES = 2;
const CROWD_CLIENTS = 4;
const RESULTS = join(import.meta.dirname, 'registry-results.md');

interface ReadsRow {
  backend: string;
  runs: number;
  seedSeconds: number;
  floor: Spread;
  canIShip: Spread;
  badge: Spread;
  unknownBadge: Spread;
  certifiedPage: Spread;
  historyPage: Spread;
  /** With the registry's default lanes. */
  lanes: CrowdRow;
  /** The same registry started with --gate-port: can-i-ship asked on the gate port. */
  gatePort: CrowdRow;
}

interface CrowdRow {
  alone: Spread;
  crowded: Spread;
  pages: number;
  failures: number;
}

async function sample(count: number, once: (index: number) => Promise<unknown>): Promise<Spread> {
  const times: number[] = [];
  for (let index = 0; index < count; index++) {
    const started = performance.now();
    await once(index);
    times.push(performance.now() - started);
  }
  return spread(times);
}

const shipPath = (index: number): string =>
  `/api/v1/can-i-ship?deployment=${PREFIX}${index % DEPLOYMENTS}&version=1.0.${index % 7}`;

/** A client of the registry on one keep-alive connection, as a release pipeline's holds. */
function client(url: string, ca: string) {
  const dispatcher = new Agent({ connect: { ca }, connections: 1 });
  const expect = async (path: string, status = 200): Promise<void> => {
    const answer = await fetch(`${url}${path}`, { dispatcher });
    const text = await answer.text();
    if (answer.status !== status) throw new Error(`${path}: ${answer.status} ${text.slice(0, 200)}`);
  };
  const ship = async (index: number): Promise<void> => {
    const answer = await fetch(`${url}${shipPath(index)}`, { dispatcher });
    const body = (await answer.json()) as { ship?: boolean };
    if (body.ship !== true) throw new Error(`${shipPath(index)}: ${JSON.stringify(body).slice(0, 200)}`);
  };
  return { expect, ship, close: () => dispatcher.close() };
}

type Client = ReturnType<typeof client>;

async function warmUp({ expect, ship }: Client): Promise<void> {
  for (let index = 0; index < 20; index++) {
    await ship(index); // JIT, connections, the tables' first pages
    await expect('/');
  }
}

/** Every read, each on its own, at one scale. */
async function reads({ expect, ship }: Client) {
  return {
    floor: await sample(SAMPLES, () => expect('/api/v1/no-such-path', 404)),
    canIShip: await sample(SAMPLES, ship),
    badge: await sample(SAMPLES, (index) => expect(`/badge/${PREFIX}${index % DEPLOYMENTS}.svg`)),
    unknownBadge: await sample(SAMPLES, () => expect('/badge/nowhere.svg', 404)),
    certifiedPage: await sample(SAMPLES, () => expect('/')),
    historyPage: await sample(SAMPLES, (index) => expect(`/deployments/${PREFIX}${index % DEPLOYMENTS}`)),
  };
}

/** can-i-ship alone, then while the crowd loads pages. */
async function underCrowd(url: string, ca: string, { ship }: Client): Promise<CrowdRow> {
  const alone = await sample(SAMPLES, ship);
  const crowd = await startCrowd(
    { url, ca, prefix: PREFIX, deployments: DEPLOYMENTS, maxPages: 1_000_000, maxSeconds: 600 },
    CROWD_PROCESSES,
    CROWD_CLIENTS,
  );
  // The crowd's first requests (its handshakes) are under way before the first question.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const crowded = await sample(SAMPLES, ship);
  const loaded = await crowd.stop();
  return { alone, crowded, pages: loaded.pages, failures: loaded.failures };
}

/** One database: seeds each scale in turn, starts the registry on it, measures, stops it. */
async function backendRows(backend: 'embedded' | 'server', onRow: (row: ReadsRow) => void): Promise<void> {
  const data = scratchDirectory('registry-reads-');
  const certDir = scratchDirectory('registry-reads-certs-');
  const postgres = backend === 'server' ? await startPostgres() : undefined;
  const databaseUrl = postgres ? await postgres.newDatabase('registry_reads') : undefined;
  // The embedded database is one process's: opened to seed only while the registry is stopped.
  const open = (): Promise<Database> =>
    databaseUrl !== undefined ? openServer(databaseUrl) : openEmbedded(join(data, 'database'));
  try {
    let stored = 0;
    for (const runs of SCALES) {
      const db = await open();
      await migrate(db);
      const seedSeconds = await seedRuns(db, {
        prefix: PREFIX,
        first: stored,
        deployments: DEPLOYMENTS,
        runs: runs - stored,
        outcomes: 3,
      });
      await db.close();
      stored = runs;
      const withRegistry = async <T>(
        extra: string[],
        work: (url: string, ca: string, client: Client, gateUrl: string | undefined) => Promise<T>,
      ) => {
        const registry = await startRegistryProcess({
          data,
          certDir,
          extra,
          ...(databaseUrl !== undefined ? { databaseUrl } : {}),
        });
        const ca = readFileSync(join(certDir, 'ca.crt'), 'utf8');
        const asking = client(registry.url, ca);
        try {
          await warmUp(asking);
          return await work(registry.url, ca, asking, registry.gateUrl);
        } finally {
          await asking.close();
          await registry.stop();
        }
      };
      const row = await withRegistry([], async (url, ca, asking) => ({
        backend,
        runs,
        seedSeconds,
        ...(await reads(asking)),
        lanes: await underCrowd(url, ca, asking),
      }));
      const gatePort = await withRegistry(['--gate-port', '0'], async (url, ca, _main, gateUrl) => {
        // The release pipeline asks the gate port; the crowd loads pages from the main port.
        const gate = client(gateUrl ?? '', ca);
        try {
          for (let index = 0; index < 20; index++) await gate.ship(index);
          return await underCrowd(url, ca, gate);
        } finally {
          await gate.close();
        }
      });
      console.log(JSON.stringify({ ...row, gatePort }));
      onRow({ ...row, gatePort });
    }
  } finally {
    await postgres?.close();
  }
}

const ms = (value: number): string => `${value.toFixed(1)}`;
const both = (value: Spread): string => `${ms(value.median)} / ${ms(value.p99)}`;
const ratio = (value: Spread, floor: Spread): string => `${(value.median / floor.median).toFixed(1)}×`;

function section(rows: ReadsRow[], load: { before: number[]; after: number[] }): string {
  const scale = rows.map(
    (row) =>
      `| ${row.backend} | ${row.runs.toLocaleString('en')} | ${both(row.floor)} | ${both(row.canIShip)} (${ratio(row.canIShip, row.floor)}) | ${both(row.badge)} (${ratio(row.badge, row.floor)}) | ${both(row.unknownBadge)} (${ratio(row.unknownBadge, row.floor)}) | ${both(row.certifiedPage)} (${ratio(row.certifiedPage, row.floor)}) | ${both(row.historyPage)} (${ratio(row.historyPage, row.floor)}) | ${row.seedSeconds.toFixed(1)} s |`,
  );
  const crowdLine = (row: ReadsRow, lane: string, crowd: CrowdRow): string =>
    `| ${row.backend} | ${row.runs.toLocaleString('en')} | ${lane} | ${both(crowd.alone)} | ${both(crowd.crowded)} | ${(crowd.crowded.p99 / crowd.alone.p99).toFixed(1)}× | ${crowd.pages} pages (${crowd.failures} not 200) |`;
  const crowd = rows.flatMap((row) => [
    crowdLine(row, 'main port', row.lanes),
    crowdLine(row, 'gate port (`--gate-port`)', row.gatePort),
  ]);
  const average = (values: number[]): string => values.map((value) => value.toFixed(1)).join(', ');
  return `${READS_START}
## Reads at 1 000, 10 000 and 100 000 stored runs, and under a crowd

Written by \`npm run bench:registry-reads\` (bench/registry-reads.ts) on ${new Date().toISOString().slice(0, 10)}, Node ${process.version},
${cpus().length} CPUs, a machine shared with other work: load average (1, 5, 15 min) ${average(load.before)} at the
start and ${average(load.after)} at the end. Read the ratios, which compare requests of the same run, more
than the milliseconds.

Three processes: the registry (\`registry serve\`, default options), the crowd (${CROWD_PROCESSES} processes of
${CROWD_CLIENTS} clients, each client on its own keep-alive connection) and the measuring client (one
keep-alive connection). The runs are seeded by SQL while the registry is stopped, in three steps over
${DEPLOYMENTS} deployments (at 100 000 runs, 1 000 versions each), each run with 3 rule outcomes.
Median / p99 of ${SAMPLES} sequential requests, in ms; in brackets each median ÷ the floor's, the floor
being a 404 of the same registry over the same connection that reads no database.

| database | runs | floor | can-i-ship | badge | unknown badge | \`/\` | \`/deployments/NAME\` | seeding |
|---|---|---|---|---|---|---|---|---|
${scale.join('\n')}

can-i-ship alone, then while the crowd loads \`/\` and deployments' pages back to back from the
main port (the crowd starts a second before the first question): asked on the main port of the
registry as started by default (\`--pages-at-once ${DEFAULT_PAGES_AT_ONCE}\`), and asked on the gate port of the
same registry started with \`--gate-port 0\` (can-i-ship on a thread of its own; on the embedded
database that thread holds PGlite). The bound asked: the p99 crowded within 3× the p99 alone.

| database | runs | can-i-ship asked on | alone | crowded | p99 crowded ÷ alone | the crowd loaded |
|---|---|---|---|---|---|---|
${crowd.join('\n')}

${READS_END}`;
}

const before = loadavg();
// BENCH_BACKENDS=embedded (or server) and BENCH_SCALES=1000,10000 narrow a trial run.
const backends = (process.env.BENCH_BACKENDS ?? 'embedded,server').split(',') as ('embedded' | 'server')[];
const rows: ReadsRow[] = [];
// Written after each row: a run stopped by its bound keeps the rows it measured.
for (const backend of backends)
  await backendRows(backend, (row) => {
    rows.push(row);
    writeFileSync(
      RESULTS,
      withReadsSection(readFileSync(RESULTS, 'utf8'), section(rows, { before, after: loadavg() })),
    );
  });
console.log(`Wrote ${RESULTS}`);
