// `npm run bench:own-work`: the reference server's own work per request, measured in one process.
// The HTTPS listener's request handler (`requestListener`, compiled from dist/) and a bare
// handler that writes the same bytes (`writeHead` with the captured status line and header
// fields, then `end` with the body, as the bare baseline of `npm run bench` does) each answer the
// same requests — real IncomingMessage and ServerResponse objects on a socket that discards what
// is written — in alternating rounds. The difference per request is what the reference does
// besides writing its answer: TLS, the socket and Node's parser are the same for both and are
// left out. Many iterations and the median of paired rounds keep it steady on a shared machine.
// It writes its section of bench/results.md. Nothing listens on the network but a loopback port
// that is never connected to.
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { tmpdir } from 'node:os';
import { execFileSync } from 'node:child_process';
import { IncomingMessage, ServerResponse, STATUS_CODES } from 'node:http';
import { Duplex } from 'node:stream';
import { format, resolveConfig } from 'prettier';
import type { Fixtures } from '../schemas/generated/fixtures.ts';
import { median, range } from './numbers.ts';
import { replaceSection } from './startup-section.ts';

const ROOT = resolve(import.meta.dirname, '..');
const RESULTS_FILE = join(ROOT, 'bench', 'results.md');
export const OWN_WORK_HEADING = "## The reference server's own work per request (in one process)";
const ROUNDS = Number(process.env.BENCH_OWN_ROUNDS ?? 11);
const REQUESTS_PER_ROUND = Number(process.env.BENCH_OWN_REQUESTS ?? 20_000);
/** Requests answered between two turns of the event loop, so that the answers' events run. */
const BATCH = 1_000;
const DOMAIN = 'localhost';
const HOST = `acme.api.${DOMAIN}`;
const GOAL_US = 5;
/** `BENCH_OWN_JOURNAL=off`: the server without its client journal, to see the journal's share. */
const JOURNAL_OFF = process.env.BENCH_OWN_JOURNAL === 'off';

interface Scenario {
  name: string;
  authorization: string | undefined;
}

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/** A socket that keeps nothing (or, when capturing, what is written) and carries the TLS facts. */
class SinkSocket extends Duplex {
  captured: Buffer[] | undefined;
  readonly servername = HOST;
  readonly localPort = 8443;
  readonly encrypted = true;

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    this.captured?.push(Buffer.from(chunk));
    done();
  }

  override _writev(chunks: { chunk: Buffer }[], done: () => void): void {
    for (const { chunk } of chunks) this.captured?.push(Buffer.from(chunk));
    done();
  }

  override _read(): void {}
}

/** The header lines as Node's parser gives them: new strings for every request. */
function rawHeaderBytes(scenario: Scenario): Buffer[] {
  const lines = ['Host', HOST];
  if (scenario.authorization !== undefined) lines.push('Authorization', scenario.authorization);
  return lines.map((text) => Buffer.from(text, 'latin1'));
}

function newRequest(socket: SinkSocket, header: readonly Buffer[]): IncomingMessage {
  const req = new IncomingMessage(socket as never);
  req.method = 'GET';
  req.url = Buffer.from('/v1/customers').toString('latin1');
  req.httpVersionMajor = 1;
  req.httpVersionMinor = 1;
  req.httpVersion = '1.1';
  req.rawHeaders = header.map((bytes) => bytes.toString('latin1'));
  req.complete = true;
  return req;
}

function answer(listener: Listener, socket: SinkSocket, header: readonly Buffer[]): void {
  const req = newRequest(socket, header);
  const res = new ServerResponse(req);
  res.shouldKeepAlive = true;
  res.assignSocket(socket as never);
  listener(req, res);
  res.detachSocket(socket as never);
}

/** What `listener` writes for one request, `Date`'s value masked. */
function capture(listener: Listener, header: readonly Buffer[]): string {
  const socket = new SinkSocket();
  socket.captured = [];
  answer(listener, socket, header);
  return Buffer.concat(socket.captured)
    .toString('latin1')
    .replace(/\r\nDate: [^\r]*/, '\r\nDate: <date>');
}

/** The bare handler: the status line, header fields and body of `captured`, written as they are. */
function bareListener(captured: string): Listener {
  const headEnd = captured.indexOf('\r\n\r\n');
  const [statusLine = '', ...lines] = captured.slice(0, headEnd).split('\r\n');
  const status = Number(statusLine.split(' ')[1]);
  const headers: string[] = [];
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon);
    // Node adds these three to both alike.
    if (name === 'Date' || name === 'Connection' || name === 'Keep-Alive') continue;
    headers.push(name, line.slice(colon + 2));
  }
  const body = captured.slice(headEnd + 4);
  const message = STATUS_CODES[status] ?? '';
  return (_req, res) => {
    res.writeHead(status, message, headers);
    res.end(body);
  };
}

/**
 * Nanoseconds of CPU time per request of the reference and of bare over one round: batches of the
 * two take turns (a different one first each time), so that a slow moment of the machine falls on
 * both. CPU time (the process's user + system time), not the wall clock: on a shared machine the
 * process is preempted often, and the wall clock would count the time it waited.
 */
async function round(
  reference: Listener,
  bare: Listener,
  header: readonly Buffer[],
): Promise<[number, number]> {
  const socket = new SinkSocket();
  const spent = [0, 0];
  for (let batch = 0; batch * BATCH < REQUESTS_PER_ROUND; batch++) {
    for (const which of batch % 2 === 0 ? [0, 1] : [1, 0]) {
      const listener = which === 0 ? reference : bare;
      const started = process.cpuUsage();
      for (let index = 0; index < BATCH; index++) answer(listener, socket, header);
      await new Promise((resolveTurn) => setImmediate(resolveTurn));
      const used = process.cpuUsage(started);
      spent[which] = (spent[which] ?? 0) + (used.user + used.system) * 1000;
    }
  }
  const requests = Math.ceil(REQUESTS_PER_ROUND / BATCH) * BATCH;
  return [(spent[0] ?? 0) / requests, (spent[1] ?? 0) / requests];
}

interface Row {
  name: string;
  status: string;
  reference: number[];
  bare: number[];
}

async function measure(listener: Listener, scenario: Scenario): Promise<Row> {
  const header = rawHeaderBytes(scenario);
  const expected = capture(listener, header);
  const bare = bareListener(expected);
  const mirrored = capture(bare, header);
  if (mirrored !== expected) throw new Error(`${scenario.name}: the bare handler writes other bytes`);
  // A warm-up round, so that both are compiled before the first measured one.
  await round(listener, bare, header);
  const row: Row = { name: scenario.name, status: expected.split('\r\n')[0] ?? '', reference: [], bare: [] };
  for (let index = 0; index < ROUNDS; index++) {
    const [reference, bareNs] = await round(listener, bare, header);
    row.reference.push(reference);
    row.bare.push(bareNs);
  }
  return row;
}

function section(rows: readonly Row[], date: string): string {
  const us = (ns: number): string => (ns / 1000).toFixed(2);
  const lines = [
    OWN_WORK_HEADING,
    '',
    `Written by \`npm run bench:own-work\` (bench/own-work.ts) on ${date}: the compiled server's request`,
    `handler (dist/, journal ${JOURNAL_OFF ? 'off' : 'on'}, access log off, no data directory) and a bare handler writing the same`,
    'bytes answer the same requests in one process, on real `IncomingMessage` and `ServerResponse` objects',
    `over a socket that discards the bytes (no TLS); ${ROUNDS} rounds of ${REQUESTS_PER_ROUND.toLocaleString('en-US')} requests each, in batches of ${BATCH} that take turns.`,
    "Times are the process's CPU time per request. Own work = reference − bare, the median of the rounds' differences with their lowest and",
    `highest (goal ≤ ${GOAL_US} µs in every scenario). Load average at the start: ${loadAverage()}.`,
    '',
    '| requests | answer | reference µs/req | bare µs/req | own work µs/req (range) | goal met |',
    '| -------- | ------ | ---------------: | ----------: | ----------------------: | -------- |',
  ];
  for (const row of rows) {
    const differences = row.reference.map((value, index) => value - (row.bare[index] ?? 0));
    const own = median(differences);
    lines.push(
      `| ${row.name} | ${row.status.replace('HTTP/1.1 ', '')} | ${us(median(row.reference))} | ${us(median(row.bare))} | ${us(own)} (${range(differences.map((value) => value / 1000))}) | ${own / 1000 <= GOAL_US ? 'yes' : 'no'} |`,
    );
  }
  return `${lines.join('\n')}\n`;
}

function loadAverage(): string {
  try {
    return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(', ');
  } catch {
    return 'unknown';
  }
}

async function main(): Promise<void> {
  if (!process.argv.includes('--no-build'))
    execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'inherit' });
  const { startReferenceServer } = (await import(
    join(ROOT, 'dist', 'reference-server', 'server.js')
  )) as typeof import('../reference-server/server.ts');
  const { DEFAULT_FIXTURES_FILE, loadFixtures } = (await import(
    join(ROOT, 'dist', 'reference-server', 'store', 'fixtures.js')
  )) as typeof import('../reference-server/store/fixtures.ts');
  const fixtures: Fixtures = loadFixtures(DEFAULT_FIXTURES_FILE);
  const secret = (id: string): string =>
    fixtures.tenants.flatMap((tenant) => tenant.keys).find((key) => key.id === id)?.secret ?? '';
  const certDir = mkdtempSync(join(tmpdir(), 'own-work-certs-'));
  const server = await startReferenceServer({
    host: '127.0.0.1',
    httpsPort: 0,
    httpPort: null,
    domain: DOMAIN,
    fixtures,
    certDir,
    ...(JOURNAL_OFF ? { journalCapacity: 0 } : {}),
  });
  try {
    const scenarios: Scenario[] = [
      { name: 'valid key, GET /v1/customers', authorization: `Bearer ${secret('key_acme_prod_full')}` },
      { name: 'no Authorization header', authorization: undefined },
      { name: 'unknown key', authorization: `Bearer mbk_prod_${'Q'.repeat(40)}` },
      {
        name: 'key without the customers permission',
        authorization: `Bearer ${secret('key_acme_prod_no_customers')}`,
      },
    ];
    const rows: Row[] = [];
    for (const scenario of scenarios) rows.push(await measure(server.requestListener, scenario));
    const text = section(rows, new Date().toISOString());
    process.stdout.write(text);
    if (!process.argv.includes('--no-write')) {
      const updated = replaceSection(readFileSync(RESULTS_FILE, 'utf8'), OWN_WORK_HEADING, text);
      // Formatted as the repository formats Markdown, so that the file passes the format check.
      writeFileSync(
        RESULTS_FILE,
        await format(updated, { ...(await resolveConfig(RESULTS_FILE)), parser: 'markdown' }),
      );
    }
  } finally {
    await server.close();
    rmSync(certDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
