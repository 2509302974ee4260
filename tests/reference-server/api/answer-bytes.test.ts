// Every answer of the API path, pinned byte for byte: the status line, each header field in order
// and spelling, and the body, as received over TLS (and plain HTTP), with only `Date`'s value
// masked; and the client journal's entries of those requests, read back through the admin API,
// with only the times and the fingerprints' values masked. The server's hot path caches and precomputes answers; this holds it to the bytes the
// straightforward writer produced. Each request goes twice on one connection (the second
// answer comes from whatever the first one cached), except where the answer closes it.
// UPDATE_ANSWER_BYTES=1 rewrites the golden files (only for a deliberate change of behaviour).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import {
  HANG_TIMEOUT_MS,
  hostOf,
  secretOf,
  send,
  rawConnection,
  testServerPerSuite,
  type TestServer,
} from '../../support/reference-client.ts';

const GOLDEN_FILE = join(import.meta.dirname, 'answer-bytes.golden.json');
const JOURNAL_GOLDEN_FILE = join(import.meta.dirname, 'journal-entries.golden.json');
const ADMIN_TOKEN = `test_${randomBytes(32).toString('base64url')}`;
const UPDATE = process.env.UPDATE_ANSWER_BYTES === '1';

interface Scenario {
  name: string;
  /** The request's head lines after the request line; `{port}` is the HTTPS port. */
  lines: (keys: Keys, port: number) => string[];
  method?: string;
  target?: string;
  servername?: string | null;
  plain?: boolean;
  /** The answer closes the connection: sent once. */
  closes?: boolean;
}

type Keys = (id: string) => string;

const ACME = hostOf('acme');
const bearer = (keys: Keys, id: string): string => `Authorization: Bearer ${keys(id)}`;

const SCENARIOS: Scenario[] = [
  { name: 'valid key', lines: (keys) => [`Host: ${ACME}`, bearer(keys, 'key_acme_prod_full')] },
  {
    name: 'valid key, HEAD',
    method: 'HEAD',
    lines: (keys) => [`Host: ${ACME}`, bearer(keys, 'key_acme_prod_read')],
  },
  {
    name: 'valid key, sandbox',
    servername: hostOf('acme', 'sandbox'),
    lines: (keys) => [`Host: ${hostOf('acme', 'sandbox')}`, bearer(keys, 'key_acme_dev_read')],
  },
  {
    name: 'valid key, other tenant',
    servername: hostOf('globex'),
    lines: (keys) => [`Host: ${hostOf('globex')}`, bearer(keys, 'key_globex_prod_full')],
  },
  {
    name: 'valid key, Host with the port',
    lines: (keys, port) => [`Host: ${ACME}:${port}`, bearer(keys, 'key_acme_prod_full')],
  },
  { name: 'no Authorization', lines: () => [`Host: ${ACME}`] },
  { name: 'empty Authorization', lines: () => [`Host: ${ACME}`, 'Authorization: '] },
  { name: 'Basic scheme', lines: () => [`Host: ${ACME}`, 'Authorization: Basic dXNlcjpwYXNz'] },
  {
    name: 'unknown key',
    lines: () => [`Host: ${ACME}`, `Authorization: Bearer mbk_prod_${'A'.repeat(32)}`],
  },
  {
    name: 'quoted key',
    lines: (keys) => [`Host: ${ACME}`, `Authorization: Bearer "${keys('key_acme_prod_full')}"`],
  },
  {
    name: 'two Authorization fields',
    lines: (keys) => [
      `Host: ${ACME}`,
      bearer(keys, 'key_acme_prod_full'),
      bearer(keys, 'key_acme_prod_read'),
    ],
  },
  { name: 'revoked key', lines: (keys) => [`Host: ${ACME}`, bearer(keys, 'key_acme_prod_revoked')] },
  {
    name: 'sandbox key on production',
    lines: (keys) => [`Host: ${ACME}`, bearer(keys, 'key_acme_dev_full')],
  },
  { name: "another tenant's key", lines: (keys) => [`Host: ${ACME}`, bearer(keys, 'key_globex_prod_full')] },
  {
    name: 'key without the permission',
    lines: (keys) => [`Host: ${ACME}`, bearer(keys, 'key_acme_prod_no_customers')],
  },
  {
    name: 'unknown path',
    target: '/v1/orders',
    lines: (keys) => [`Host: ${ACME}`, bearer(keys, 'key_acme_prod_full')],
  },
  {
    name: 'method not allowed',
    method: 'DELETE',
    lines: (keys) => [`Host: ${ACME}`, bearer(keys, 'key_acme_prod_full')],
  },
  {
    name: 'query string',
    target: '/v1/customers?limit=1',
    lines: (keys) => [`Host: ${ACME}`, bearer(keys, 'key_acme_prod_full')],
  },
  { name: 'no Host', servername: ACME, lines: (keys) => [bearer(keys, 'key_acme_prod_full')] },
  { name: 'two Host fields', lines: () => [`Host: ${ACME}`, `Host: ${ACME}`] },
  { name: 'Host with another port', lines: (_keys, port) => [`Host: ${ACME}:${port + 1}`] },
  { name: 'Host of another site', servername: ACME, lines: () => ['Host: example.com'] },
  { name: 'SNI of another tenant', servername: hostOf('globex'), lines: () => [`Host: ${ACME}`] },
  { name: 'no SNI', servername: null, lines: () => [`Host: ${ACME}`] },
  { name: 'unknown tenant', servername: hostOf('initech'), lines: () => [`Host: ${hostOf('initech')}`] },
  { name: 'URL too long', target: `/v1/customers?q=${'a'.repeat(8300)}`, lines: () => [`Host: ${ACME}`] },
  {
    name: 'header fields too large',
    closes: true,
    lines: () => [`Host: ${ACME}`, `X-Filler: ${'a'.repeat(20 * 1024)}`],
  },
  { name: 'CONNECT', method: 'CONNECT', target: `${ACME}:443`, closes: true, lines: () => [`Host: ${ACME}`] },
  {
    name: 'plain HTTP',
    plain: true,
    closes: true,
    lines: (keys) => [`Host: ${ACME}`, bearer(keys, 'key_acme_prod_full')],
  },
];

describe('answer bytes of every API scenario', () => {
  const target = testServerPerSuite({ adminToken: ADMIN_TOKEN });

  test('match the golden answers, on a new connection and again on the same one', async () => {
    const keys: Keys = (id) => secretOf(target().fixtures, id);
    const answers: Record<string, string> = {};
    for (const scenario of SCENARIOS) {
      const port = target().server.httpsPort;
      const head = [
        `${scenario.method ?? 'GET'} ${scenario.target ?? '/v1/customers'} HTTP/1.1`,
        ...scenario.lines(keys, port),
        '',
        '',
      ].join('\r\n');
      const requests = scenario.closes ? [head] : [head, head];
      const received = await exchange(target(), scenario, requests.join(''));
      const [first = '', ...again] = splitAnswers(received, requests.length, scenario.method === 'HEAD').map(
        masked,
      );
      for (const repeated of again) assert.equal(repeated, first, `${scenario.name}: a repeated request`);
      answers[scenario.name] = first;
    }
    if (UPDATE) writeFileSync(GOLDEN_FILE, `${JSON.stringify(answers, null, 2)}\n`);
    const golden = JSON.parse(readFileSync(GOLDEN_FILE, 'utf8')) as Record<string, string>;
    for (const scenario of SCENARIOS) {
      assert.equal(answers[scenario.name], golden[scenario.name], `${scenario.name}: the answer changed`);
    }
    assert.deepEqual(Object.keys(golden), Object.keys(answers), 'the golden file names other scenarios');

    // What the journal made of the same requests (it describes each from the request itself).
    const reply = await send(target(), {
      host: 'admin.localhost',
      path: '/v1/journal',
      headers: [['Authorization', `Bearer ${ADMIN_TOKEN}`]],
    });
    assert.equal(reply.status, 200, reply.body);
    const journal = maskedJournal(reply.body);
    if (UPDATE) writeFileSync(JOURNAL_GOLDEN_FILE, `${JSON.stringify(journal, null, 2)}\n`);
    // As text: the order of each entry's fields is part of the admin API's answer too.
    assert.equal(`${JSON.stringify(journal, null, 2)}\n`, readFileSync(JOURNAL_GOLDEN_FILE, 'utf8'));
  });
});

/**
 * The journal's answer as a sorted list: without times (entries of one millisecond in two tenants'
 * rings may be read in either order), and with each fingerprint replaced by the order of its first
 * appearance in that list (fingerprints differ from one process to the next; equal keys keep
 * equal fingerprints).
 */
function maskedJournal(body: string): unknown {
  const journal = JSON.parse(body) as { tenants: unknown[]; data: Record<string, unknown>[] };
  const entries = journal.data
    .map(({ time: _time, keyFingerprint, ...rest }) => ({ text: JSON.stringify(rest), rest, keyFingerprint }))
    .sort((a, b) => (a.text < b.text ? -1 : a.text > b.text ? 1 : 0));
  const fingerprints = new Map<unknown, string>();
  const data = entries.map(({ rest, keyFingerprint }) => {
    if (keyFingerprint === undefined) return rest;
    if (!fingerprints.has(keyFingerprint))
      fingerprints.set(keyFingerprint, `<fingerprint ${fingerprints.size + 1}>`);
    return { ...rest, keyFingerprint: fingerprints.get(keyFingerprint) };
  });
  return { tenants: journal.tenants, data };
}

/** Writes `bytes` on a new connection and reads until the answers are complete or it closes. */
function exchange(target: TestServer, scenario: Scenario, bytes: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const servername = scenario.servername === undefined ? ACME : scenario.servername;
    const socket = rawConnection(target, { plain: scenario.plain === true, servername }, bytes);
    const chunks: Buffer[] = [];
    const expected = scenario.closes ? 1 : 2;
    const finish = (): void => {
      socket.destroy();
      resolve(Buffer.concat(chunks));
    };
    socket.setTimeout(HANG_TIMEOUT_MS, () =>
      socket.destroy(new Error(`${scenario.name}: no answer in time`)),
    );
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      if (complete(Buffer.concat(chunks), expected, scenario.method === 'HEAD')) finish();
    });
    socket.on('error', (error) => (chunks.length > 0 ? finish() : reject(error)));
    socket.on('end', finish);
  });
}

function complete(bytes: Buffer, count: number, head: boolean): boolean {
  try {
    return splitAnswers(bytes, count, head).length === count;
  } catch {
    return false;
  }
}

/** Cuts `count` answers framed by Content-Length (no body after HEAD); throws when incomplete. */
function splitAnswers(bytes: Buffer, count: number, head: boolean): string[] {
  const answers: string[] = [];
  let start = 0;
  for (let index = 0; index < count; index++) {
    const headEnd = bytes.indexOf('\r\n\r\n', start);
    if (headEnd === -1) throw new Error('incomplete head');
    const text = bytes.subarray(start, headEnd).toString('latin1');
    const length = head ? 0 : Number(/\r\ncontent-length: *(\d+)/i.exec(text)?.[1] ?? 0);
    const end = headEnd + 4 + length;
    if (end > bytes.length) throw new Error('incomplete body');
    answers.push(bytes.subarray(start, end).toString('latin1'));
    start = end;
  }
  return answers;
}

/** `Date` is the only field whose value changes from one answer to the next. */
function masked(answer: string): string {
  return answer.replace(/\r\nDate: [^\r]*/, '\r\nDate: <date>');
}
