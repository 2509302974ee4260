// `npm run bench:registry-publish`: what a publish costs, on the embedded database (PGlite) and on a
// PostgreSQL server, and rewrites the two sections of bench/registry-results.md that say so (the
// reads' sections are bench/registry.ts's):
//   - throughput: signed bundles POSTed over HTTPS one at a time and 4 at once, against a bare
//     baseline in the same run: the same bodies POSTed to an HTTPS server of the same certificate
//     that reads each body and answers, storing nothing;
//   - memory: the process's RSS at rest and its peak under 20 concurrent large uploads
//     (memoryUnderUploads), and under large bundles that are stored.
// Bundles are made before the clock starts. Every loop is bounded.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Agent, fetch } from 'undici';
import { registryTls } from '../registry/http/certificate.ts';
import { DEFAULT_MAX_UPLOADS } from '../registry/http/upload-gate.ts';
import { uploadOf } from '../registry/publish/upload.ts';
import { ruleOutcomes, runFacts } from '../registry/publish/run-facts.ts';
import { storeRun } from '../registry/store/runs.ts';
import { sha256Hex } from '../conformance/attestation/manifest.ts';
import type { ConformanceReport } from '../schemas/generated/conformance-report.ts';
import { BACKENDS, openBackend, stopBackends, type Backend } from '../tests/registry/support/backends.ts';
import { keyPair, makeBundle, removeBundles } from '../tests/registry/support/bundles.ts';
import { startTestRegistry } from '../tests/registry/support/registry.ts';
import { scratchDirectory } from '../tests/support/scratch.ts';
import { memoryUnderUploads, storedLargeUploads, type MemoryRow } from './registry-scale.ts';

/** BENCH_PUBLISHES makes a shorter run (a loaded machine); the results say how many were sent. */
export const PUBLISHES = Number(process.env.BENCH_PUBLISHES ?? 120);
/** BENCH_PARTS=throughput (or memory) measures and rewrites that section only; both by default. */
const PARTS = new Set((process.env.BENCH_PARTS ?? 'memory,throughput').split(','));
const RESULTS = join(import.meta.dirname, 'registry-results.md');
const vendor = keyPair();

export interface Throughput {
  sequential: number;
  concurrent: number;
  /** The same bodies to a server that reads them and stores nothing, 4 at once. */
  bare: number;
  /** This process's CPU (user + system, the sending client's included) per publish, 4 at once; ms. */
  cpuPerPublish: number;
  /** The same, per bare POST. */
  cpuPerBare: number;
  /** storeRun alone (no HTTP, no verifying), 4 at once: the database's part; per second. */
  storeOnly: number;
  /** This process's CPU per storeRun alone (on a server, its database's processes not counted); ms. */
  cpuPerStore: number;
  /** The 1-minute load average before and after. */
  load: [number, number];
}

/** `rate`, with this process's CPU per send (user + system, in ms) over the same span. */
async function rateAndCpu(...args: Parameters<typeof rate>): Promise<{ rate: number; cpu: number }> {
  const before = process.cpuUsage();
  const measured = await rate(...args);
  const used = process.cpuUsage(before);
  return { rate: measured, cpu: (used.user + used.system) / 1000 / (args[1] - args[0]) };
}

/** Sends `bodies[from..to)` with `parallel` in flight; bundles per second. */
async function rate(
  from: number,
  to: number,
  parallel: number,
  send: (index: number) => Promise<void>,
): Promise<number> {
  const started = performance.now();
  let next = from;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < to) await send(next++);
    }),
  );
  return ((to - from) * 1000) / (performance.now() - started);
}

/** An HTTPS server of the registry's certificate that reads a POST's body and answers 201. */
async function bareServer(): Promise<{ url: string; ca: string; close(): Promise<void> }> {
  const certDir = scratchDirectory('bare-certs-');
  const tls = await registryTls({ certDir });
  const server = createServer({ key: tls.key, cert: tls.cert }, (request, response) => {
    request.on('data', () => undefined);
    request.on('end', () => {
      response.writeHead(201, { 'content-type': 'application/json' });
      response.end('{"stored":"new"}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://localhost:${(server.address() as AddressInfo).port}`,
    ca: readFileSync(tls.caPath ?? '', 'utf8'),
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * What a publish's transaction costs alone: the same bundle's facts, files and outcomes stored by
 * storeRun `count` times, 4 at once, each as a bundle of its own (a different address).
 */
async function storeOnly(backend: Backend, count: number): Promise<{ rate: number; cpu: number }> {
  const directory = makeBundle({ key: vendor.privateKey });
  const names = readdirSync(directory);
  const contents = new Map(names.map((name) => [name, readFileSync(join(directory, name))]));
  const report = JSON.parse(contents.get('conformance.json')?.toString('utf8') ?? '') as ConformanceReport;
  const outcomes = ruleOutcomes(report);
  const opened = await openBackend(backend);
  const store = async (index: number): Promise<void> => {
    const facts = runFacts(report, {
      deployment: 'bench',
      version: `1.0.${index}`,
      signer: 'sha256:bench',
      publisher: 'acme',
      checkedBy: 'publisher',
      statementSha256: sha256Hex(`statement ${index}`),
      reportSha256: sha256Hex(`report ${index}`),
    });
    const files = names.map((name) => {
      const content = contents.get(name) ?? Buffer.alloc(0);
      return { name, sha256: sha256Hex(content), content };
    });
    const result = await storeRun(
      opened.db,
      facts,
      { sha256: sha256Hex(`bundle ${index}`), files },
      outcomes,
    );
    if (result.stored !== 'new') throw new Error(`store ${index}: ${result.stored}`);
  };
  await rate(0, 5, 1, store);
  const measured = await rateAndCpu(5, 5 + count, DEFAULT_MAX_UPLOADS, store);
  await opened.close();
  return measured;
}

export async function publishThroughput(backend: Backend): Promise<Throughput> {
  const loadBefore = loadavg()[0] ?? NaN;
  const registry = await startTestRegistry(backend, { acme: [vendor.publicPem] });
  const token = registry.tokens.get('acme') ?? '';
  const bodies = Array.from({ length: 2 * PUBLISHES }, (_, index) =>
    uploadOf(
      makeBundle({ key: vendor.privateKey, startedAt: new Date(Date.UTC(2026, 0, 1, 0, index)) }),
      'bench',
      `1.0.${index}`,
    ),
  );
  const publish = async (index: number): Promise<void> => {
    const answer = await registry.request('/api/v1/runs', {
      method: 'POST',
      body: bodies[index] ?? '',
      token,
    });
    if (answer.status !== 201) throw new Error(`publish ${index}: ${answer.text.slice(0, 300)}`);
  };
  await rate(0, 5, 1, publish); // warm-up: JIT, connections, the first pages of the tables
  const sequential = await rate(5, PUBLISHES, 1, publish);
  const concurrent = await rateAndCpu(PUBLISHES, 2 * PUBLISHES, DEFAULT_MAX_UPLOADS, publish);
  await registry.close();
  const bare = await bareServer();
  const dispatcher = new Agent({ connect: { ca: bare.ca } });
  const post = async (index: number): Promise<void> => {
    const answer = await fetch(`${bare.url}/api/v1/runs`, {
      method: 'POST',
      dispatcher,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: bodies[index] ?? '',
    });
    await answer.text();
  };
  await rate(0, 5, 1, post);
  const bareRate = await rateAndCpu(PUBLISHES, 2 * PUBLISHES, DEFAULT_MAX_UPLOADS, post);
  await dispatcher.close();
  await bare.close();
  const stored = await storeOnly(backend, PUBLISHES);
  return {
    sequential,
    concurrent: concurrent.rate,
    bare: bareRate.rate,
    cpuPerPublish: concurrent.cpu,
    cpuPerBare: bareRate.cpu,
    storeOnly: stored.rate,
    cpuPerStore: stored.cpu,
    load: [loadBefore, loadavg()[0] ?? NaN],
  };
}

const mib = (bytes: number): string => `${Math.round(bytes / 1024 / 1024)} MiB`;

/** Per database: the ceiling its CPU per publish sets on a core of its own, and its store's share. */
function ceilings(rows: readonly { backend: Backend; throughput: Throughput }[]): string {
  return rows
    .map(
      ({ backend, throughput: t }) =>
        `${backend}: ${t.cpuPerPublish.toFixed(1)} ms a publish, at most ${(1000 / t.cpuPerPublish).toFixed(0)} a second, of which the store ${t.cpuPerStore.toFixed(1)} ms`,
    )
    .join('; ');
}

export function publishSection(rows: { backend: Backend; throughput: Throughput }[]): string {
  const n = DEFAULT_MAX_UPLOADS;
  return `## Publish throughput (bundles per second)

Signed bundles of the suite's real size (reports, badge, statement, envelope: about 106 KB in ten
files, 95 KB as sent) POSTed over HTTPS to a registry in the same process; each is read as it
arrives into its upload directory, verified there by \`verifyBundle\` with the publisher's keys
(hashes, schema, reports re-rendered, signature: every check of \`verify\`) and stored in one
transaction with its files and about 140 rule outcomes (each rule overall and per protocol).
${PUBLISHES - 5} publishes one at a time, then ${PUBLISHES} with ${n} in flight. Bare: the same ${PUBLISHES} bodies, ${n} in
flight, to an HTTPS server of the same certificate in the same process that reads each body and
answers 201 without looking at it — what TLS and HTTP alone cost here. Store only: \`storeRun\` of
the same facts, files and outcomes ${PUBLISHES} times, ${n} at once, no HTTP and no verifying — the
database's part. CPU: this process's user + system time per publish over the same span (the
sending client's included; on a server, PostgreSQL's own processes are not counted). Load: the
machine's 1-minute load average before and after the database's rows (2 CPUs, shared).

| database | one at a time | ${n} at once | bare (${n} at once) | ${n} at once ÷ bare | CPU per publish | CPU per bare POST | store only (${n} at once) | CPU per store | load |
|---|---|---|---|---|---|---|---|---|---|
${rows
  .map(
    ({ backend, throughput: t }) =>
      `| ${backend} | ${t.sequential.toFixed(1)} | ${t.concurrent.toFixed(1)} | ${t.bare.toFixed(1)} | ${(t.concurrent / t.bare).toFixed(2)} | ${t.cpuPerPublish.toFixed(1)} ms | ${t.cpuPerBare.toFixed(1)} ms | ${t.storeOnly.toFixed(1)} | ${t.cpuPerStore.toFixed(1)} ms | ${t.load[0].toFixed(1)} → ${t.load[1].toFixed(1)} |`,
  )
  .join('\n')}

What bounds it. A publish is CPU in this process, and 50 a second needs at most 20 ms of it a
publish on a core of its own (${ceilings(rows)}). On the embedded database everything — TLS, reading
the upload, verifying, and PostgreSQL itself (WebAssembly) — runs on this one thread, the store
included; on a server the database works in its own processes, beside this one (its CPU is not in
the column). On a shared machine (the load column, 2 CPUs) the rates measured are what the process
got of a core, below those ceilings. The store on PGlite is mostly the rule outcome rows (about 140,
each checked against its run by the foreign key and indexed by the primary key: both kept), the
files (their bytes through TOAST compression), and PGlite's fixed cost per statement (six protocol
messages each) over the transaction's dozen statements. The rest of a publish is TLS and HTTP
(about the bare POST's CPU), verifying (re-rendering the reports, the signature, the hashes, the
JSON read for duplicate keys) and writing the upload's files. What was cut, by profile
(\`node --cpu-prof\` of the registry while it received): PGlite's own bytea codec (a string per byte,
about a fifth of a publish's CPU on the embedded database), ten file statements a publish (now one)
and the upload directory's creation and removal on the event loop. Every check stays.
`;
}

/** A row of the memory section: a database, and how its uploads ended or where its files went. */
export interface MemoryMeasure {
  backend: Backend;
  kind: string;
  memory: MemoryRow;
}

export function memorySection(rows: readonly MemoryMeasure[]): string {
  const row = ({ backend, kind, memory }: MemoryMeasure): string =>
    `| ${backend} | ${kind} | ${mib(memory.atRest)} | ${mib(memory.peak)} | ${mib(memory.peak - memory.atRest)} | ${mib(memory.after - memory.atRest)} | ${memory.uploads} × ${mib(memory.uploadBytes)} | ${Object.entries(
      memory.answers,
    )
      .map(([status, count]) => `${count} × ${status}`)
      .join(', ')} |`;
  return `## Memory under 20 concurrent large uploads

The bench process's RSS (the registry runs in it) at rest, its peak while uploads arrive at once,
streamed by the sender (which holds almost none of them), and what is left once every answer came
(kept). With the default \`--max-uploads ${DEFAULT_MAX_UPLOADS}\`, ${DEFAULT_MAX_UPLOADS} are read at a time, ${DEFAULT_MAX_UPLOADS} wait unread, the rest
are refused 503 with Retry-After. Refused: 20 uploads of a real bundle plus a 40 MiB file not in
its SHA256SUMS, each written to disk as it arrives, checked there and refused 422. Stored: signed
bundles whose HAR is 40 MiB, each written to disk, verified there and stored. On the embedded
database a file of 256 KiB or more is kept outside the database, in the data directory's blob store
(the upload's file linked there, as \`registry serve\` does): "stored (blobs)". "stored (in rows)" is
the same uploads with every file inserted into PGlite, as before the blob store (and as a database
written then still holds them). On a PostgreSQL server every file is in its row.

The bound: an upload in flight holds one piece of its body (at most 64 KiB as Node reads a
socket) and, while its run is stored, the files of one INSERT read from disk: small files
together up to 256 KiB, or one larger file below the blob threshold (on a server: the largest
file), a few times over in the driver: peak ≤ rest + ${DEFAULT_MAX_UPLOADS} × (64 KiB + that file or 512 KiB × a few)
+ a constant, whatever the number of uploads sent and whatever their size. An upload never holds its whole body, text or bundle. A file inserted into PGlite passes
through its WebAssembly memory, which grows to the largest it needed and is not given back: what
the blob store avoids for large files.

| database | uploads | RSS at rest | RSS peak | peak − rest | kept | uploads sent | answers |
|---|---|---|---|---|---|---|---|
${rows.map(row).join('\n')}
`;
}

/** The section of the results file that starts with `heading`, up to the next `## `; '' when none. */
export function sectionOf(text: string, heading: string): string {
  const start = text.indexOf(heading);
  if (start === -1) return '';
  const next = text.indexOf('\n## ', start + heading.length);
  return next === -1 ? text.slice(start) : text.slice(start, next + 1);
}

/** Replaces the section that starts with `heading` (up to the next `## `) in the results file. */
export function replaceSection(text: string, heading: string, section: string): string {
  const start = text.indexOf(heading);
  if (start === -1) return `${text.trimEnd()}\n\n${section}`;
  const next = text.indexOf('\n## ', start + heading.length);
  return `${text.slice(0, start)}${section}${next === -1 ? '' : text.slice(next)}`;
}

if (import.meta.filename === process.argv[1]) {
  const publishRows: { backend: Backend; throughput: Throughput }[] = [];
  const memoryRows: MemoryMeasure[] = [];
  // The memory first (the issue's row), then the throughput; the file is rewritten after each
  // database, so a run stopped half-way keeps what it measured.
  const write = (): void => {
    let text = readFileSync(RESULTS, 'utf8');
    if (memoryRows.length > 0) text = replaceSection(text, '## Memory under', memorySection(memoryRows));
    if (publishRows.length > 0)
      text = replaceSection(text, '## Publish throughput', publishSection(publishRows));
    writeFileSync(RESULTS, text);
  };
  for (const backend of PARTS.has('memory') ? BACKENDS : []) {
    const registry = await startTestRegistry(backend, { acme: [vendor.publicPem] });
    memoryRows.push({
      backend,
      kind: 'refused',
      memory: await memoryUnderUploads(registry, vendor.privateKey),
    });
    await registry.close();
    // As `registry serve` stores them: the embedded database with its blob store, a server without.
    const blobs = backend === 'embedded' ? { blobDirectory: scratchDirectory('bench-blobs-') } : {};
    const storing = await startTestRegistry(backend, { acme: [vendor.publicPem] }, blobs);
    const stored = await storedLargeUploads(storing, vendor.privateKey);
    await storing.close();
    memoryRows.push({ backend, kind: backend === 'embedded' ? 'stored (blobs)' : 'stored', memory: stored });
    if (backend === 'embedded') {
      // Last on this database: PGlite's memory is not given back, and would be counted at rest after.
      const inRows = await startTestRegistry(backend, { acme: [vendor.publicPem] });
      memoryRows.push({
        backend,
        kind: 'stored (in rows)',
        memory: await storedLargeUploads(inRows, vendor.privateKey),
      });
      await inRows.close();
    }
    console.log(memoryRows.slice(-3));
    write();
  }
  for (const backend of PARTS.has('throughput') ? BACKENDS : []) {
    const throughput = await publishThroughput(backend);
    publishRows.push({ backend, throughput });
    console.log(backend, throughput);
    write();
  }
  await stopBackends();
  removeBundles();
  console.log(`Wrote the ${[...PARTS].join(' and ')} sections of ${RESULTS}`);
}
