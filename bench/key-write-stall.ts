// `npm run bench:stall`: does creating keys stall the API? The reference server (the CLI, in a
// process of its own, with a data directory) is probed with GET /v1/customers, one request at a
// time on one keep-alive connection: first idle, then while 1 000 keys are created through the
// admin API (16 at a time). The stall ratio is the probe's median latency during the burst over
// its idle median; each creation must be acknowledged 201. BENCH_STALL_COMPARE=DIR also runs the
// server of another checkout (an older commit, with its own node_modules), round by round in
// turn with this one. Writes bench/stall-results.md and prints it. Every target is 127.0.0.1;
// every wait is bounded.
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { format, resolveConfig } from 'prettier';
import { DEFAULT_FIXTURES_FILE, loadFixtures } from '../reference-server/store/fixtures.ts';

const ROUNDS = 3;
const CREATIONS = 1_000;
const CREATION_CONCURRENCY = 16;
const IDLE_PROBES = 1_000;
const TIME_LIMIT_MS = 120_000;
const RESULTS_FILE = join(import.meta.dirname, 'stall-results.md');
const THIS_TREE = resolve(import.meta.dirname, '..');
const SERVERS = [
  { label: 'this tree', root: THIS_TREE },
  ...(process.env.BENCH_STALL_COMPARE
    ? [
        {
          label: process.env.BENCH_STALL_COMPARE_LABEL ?? 'compared',
          root: resolve(process.env.BENCH_STALL_COMPARE),
        },
      ]
    : []),
];

interface Round {
  server: string;
  idleP50Ms: number;
  burstP50Ms: number;
  burstProbes: number;
  burstMs: number;
  created: number;
}

async function main(): Promise<void> {
  const began = Date.now();
  const load = loadavg()[0]?.toFixed(2) ?? '?';
  const rounds: Round[] = [];
  for (let index = 0; index < ROUNDS; index++) {
    for (const server of SERVERS) rounds.push(await round(server.label, server.root));
  }
  const lines = [
    '# Key creation against API latency',
    '',
    `Written by \`npm run bench:stall\` (bench/key-write-stall.ts) on ${new Date(began).toISOString()}, load average ${load} at the start. Servers: ${SERVERS.map((server) => `${server.label}${commitOf(server.root)}`).join(', ')}.`,
    '',
    `Each round starts the CLI with a fresh data directory, probes GET /v1/customers (one request at a time, one keep-alive connection) ${IDLE_PROBES} times idle, then for as long as ${CREATIONS} admin API key creations (${CREATION_CONCURRENCY} at a time) take. The stall ratio is the burst median over the idle median; the goal is at most 2.`,
    '',
    '| server | idle p50 ms | burst p50 ms | stall ratio | probes during burst | burst ms | keys acknowledged |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rounds.map(
      (r) =>
        `| ${r.server} | ${r.idleP50Ms.toFixed(2)} | ${r.burstP50Ms.toFixed(2)} | ${(r.burstP50Ms / r.idleP50Ms).toFixed(2)} | ${r.burstProbes} | ${Math.round(r.burstMs)} | ${r.created} |`,
    ),
    '',
    ...SERVERS.map((server) => {
      const ratios = rounds
        .filter((r) => r.server === server.label)
        .map((r) => r.burstP50Ms / r.idleP50Ms)
        .sort((a, b) => a - b);
      return `- ${server.label}: **median stall ratio ${median(ratios).toFixed(2)}** (lowest ${ratios[0]?.toFixed(2)}, highest ${ratios.at(-1)?.toFixed(2)}).`;
    }),
  ];
  const markdown = await format(lines.join('\n'), {
    ...(await resolveConfig(RESULTS_FILE)),
    filepath: RESULTS_FILE,
  });
  writeFileSync(RESULTS_FILE, markdown);
  console.log(markdown);
}

async function round(server: string, root: string): Promise<Round> {
  const workDir = mkdtempSync(join(tmpdir(), 'bench-stall-'));
  const dataDir = join(workDir, 'data');
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      join(root, 'reference-server', 'cli', 'cli.ts'),
      '--port',
      '0',
      '--http-port',
      'off',
      '--cert-dir',
      join(workDir, 'certs'),
      '--data-dir',
      dataDir,
      '--access-log',
      'off',
    ],
    { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const killer = setTimeout(() => child.kill('SIGKILL'), TIME_LIMIT_MS);
  try {
    const port = await readyPort(child.stdout);
    const ca = readFileSync(join(workDir, 'certs', 'ca.crt'), 'utf8');
    const adminToken = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
    const key = fixtureKey();
    const probe = client(port, ca, 'acme.api.localhost', 1);
    const probeOnce = () =>
      probe.call('GET', '/v1/customers', { Authorization: `Bearer ${key}` }).then((reply) => {
        if (reply.status !== 200) throw new Error(`The probe got ${reply.status}.`);
        return reply.ms;
      });
    for (let warm = 0; warm < 200; warm++) await probeOnce();
    const idle: number[] = [];
    for (let index = 0; index < IDLE_PROBES; index++) idle.push(await probeOnce());

    const admin = client(port, ca, 'admin.localhost', CREATION_CONCURRENCY);
    let created = 0;
    let next = 0;
    let done = false;
    const creator = async (): Promise<void> => {
      while (next < CREATIONS) {
        next += 1;
        const reply = await admin.call(
          'POST',
          '/v1/tenants/acme/keys',
          { Authorization: `Bearer ${adminToken}`, 'Content-Type': 'application/json' },
          JSON.stringify({ name: `burst ${next}`, environment: 'production', access: 'read_only' }),
        );
        if (reply.status !== 201) throw new Error(`A creation got ${reply.status}.`);
        created += 1;
      }
    };
    const burstStarted = performance.now();
    const burst = Promise.all(Array.from({ length: CREATION_CONCURRENCY }, creator)).finally(
      () => (done = true),
    );
    const during: number[] = [];
    while (!done) during.push(await probeOnce());
    await burst;
    const burstMs = performance.now() - burstStarted;
    probe.close();
    admin.close();
    return {
      server,
      idleP50Ms: median(idle),
      burstP50Ms: median(during),
      burstProbes: during.length,
      burstMs,
      created,
    };
  } finally {
    clearTimeout(killer);
    child.kill('SIGTERM');
    await once(child, 'close');
    rmSync(workDir, { recursive: true, force: true });
  }
}

function commitOf(root: string): string {
  const result = spawnSync('git', ['-C', root, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' });
  return result.status === 0 ? ` (commit ${result.stdout.trim()})` : '';
}

function fixtureKey(): string {
  const tenant = loadFixtures(DEFAULT_FIXTURES_FILE).tenants.find((candidate) => candidate.id === 'acme');
  const key = tenant?.keys.find((candidate) => candidate.id === 'key_acme_prod_full');
  if (!key) throw new Error('The fixtures have no key_acme_prod_full.');
  return key.secret;
}

async function readyPort(stdout: NodeJS.ReadableStream | null): Promise<number> {
  let text = '';
  for await (const chunk of stdout ?? []) {
    text += String(chunk);
    const port = /Listening: https port (\d+)/.exec(text)?.[1];
    if (port) {
      stdout?.resume();
      return Number(port);
    }
  }
  throw new Error(`The server exited before it was ready:\n${text}`);
}

/** Requests to one host over `sockets` keep-alive connections, timing each. */
function client(port: number, ca: string, hostname: string, sockets: number) {
  const agent = new Agent({ keepAlive: true, maxSockets: sockets });
  return {
    call: (method: string, path: string, headers: Record<string, string>, body?: string) =>
      new Promise<{ status: number; ms: number }>((resolvePromise, reject) => {
        const started = performance.now();
        const req = request(
          {
            host: '127.0.0.1',
            port,
            method,
            path,
            agent,
            ca,
            servername: hostname,
            headers: { Host: `${hostname}:${port}`, ...headers },
            timeout: 30_000,
          },
          (res) => {
            res.resume();
            res.on('end', () =>
              resolvePromise({ status: res.statusCode ?? 0, ms: performance.now() - started }),
            );
          },
        );
        req.on('timeout', () => req.destroy(new Error('No answer within 30 s.')));
        req.on('error', reject);
        req.end(body);
      }),
    close: () => agent.destroy(),
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[middle] ?? NaN)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

main().catch((error: unknown) => {
  console.error(`bench:stall: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
