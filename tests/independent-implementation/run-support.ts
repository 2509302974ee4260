// What the tests of this folder share: a port where nothing listens, writing a target file, one
// request with full control of SNI, Host and header lines, and the assertions that a run's report
// says CONFORMANT (or NOT CONFORMANT) with exactly the expected rule verdicts.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect as http2Connect, constants as http2 } from 'node:http2';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { RULES, ruleById } from '../../conformance/catalog/rules.ts';
import type { ConformanceRun } from '../support/conformance-run.ts';
import { scanDirectory, secretForms } from '../support/artifact-scan.ts';
import { notApplicableByNature } from '../support/not-applicable-by-nature.ts';

/**
 * A loopback port with nothing listening: bound by the system, then released. Plain HTTP
 * pointed there is refused, the way a deployment that serves HTTPS only answers it.
 */
export async function unusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((closed) => server.close(() => closed()));
  return port;
}

/** Writes `target` as JSON in `directory`; returns the file's path. */
export function writeTargetFile(directory: string, name: string, target: object): string {
  const file = join(directory, name);
  writeFileSync(file, JSON.stringify(target, null, 2));
  return file;
}

/**
 * The run's report says CONFORMANT, exit 0, every rule of the catalog passed — except
 * `warnings`, which must be exactly those that warned, and the rules of HTTP/2's own against a
 * target without HTTP/2 (not applicable). Nothing is left not evaluated.
 */
export function assertConformant(
  run: ConformanceRun,
  warnings: readonly string[] = [],
  notApplicable: readonly string[] = [],
): void {
  assertRuleVerdicts(run, {
    ...Object.fromEntries(warnings.map((id) => [id, 'warning'])),
    ...Object.fromEntries(notApplicable.map((id) => [id, 'not-applicable'])),
  });
  assert.equal(run.report?.verdict, 'CONFORMANT');
  assert.match(run.stdout, /VERDICT: CONFORMANT/);
  assert.equal(run.exitCode, 0, run.stderr);
}

/**
 * The run's report says NOT CONFORMANT, exit 1, and exactly the rules of `notPassed` have the
 * verdict given there (`fail` or `warning`): every other rule of the catalog passed.
 */
export function assertNotConformant(
  run: ConformanceRun,
  notPassed: Readonly<Record<string, 'fail' | 'warning'>>,
): void {
  assertRuleVerdicts(run, notPassed);
  assert.equal(run.report?.verdict, 'NOT CONFORMANT');
  assert.match(run.stdout, /VERDICT: NOT CONFORMANT/);
  assert.equal(run.exitCode, 1, run.stderr);
}

/**
 * One verdict per rule of the catalog: those of `notPassed`, and `pass` for every other one — but
 * for the rules of HTTP/2's own against a target without HTTP/2, which are `not-applicable`
 * (never a pass), all four alike and each saying why, and the cookie rule against a deployment
 * is what it is (not-applicable-by-nature.ts: no cookie set, no ETag served), each saying so.
 */
function assertRuleVerdicts(run: ConformanceRun, notPassed: Readonly<Record<string, string>>): void {
  const rules = run.report?.rules ?? [];
  const byId = new Map(rules.map((rule) => [rule.id, rule]));
  const http2Rules = RULES.filter((rule) => ruleById(rule.id).http2Only === true);
  const withoutHttp2 = http2Rules.every((rule) => {
    const result = byId.get(rule.id);
    return result?.verdict === 'not-applicable' && /does not offer HTTP\/2/.test(result.message ?? '');
  });
  const unexpected = RULES.flatMap((rule) => {
    const result = byId.get(rule.id);
    const byNature =
      (ruleById(rule.id).http2Only && withoutHttp2) ||
      (result !== undefined && notApplicableByNature(result));
    const expected = notPassed[rule.id] ?? (byNature ? 'not-applicable' : 'pass');
    if (result?.verdict === expected) return [];
    return [
      `${rule.id} (${rule.level}): ${result?.verdict ?? 'absent from the report'}, expected ${expected}` +
        (result?.message ? ` — ${result.message}` : ''),
    ];
  });
  assert.deepEqual(unexpected, [], `Rules with another verdict than expected.\n${run.stderr}`);
  assert.equal(rules.length, RULES.length, 'one verdict per rule of the catalog, no more');
}

/** No key of `env` (the run's environment) in any file the run wrote. */
export function assertNoKeyInReports(run: ConformanceRun, env: Record<string, string>): void {
  const { findings, filesScanned } = scanDirectory(run.reportDir, secretForms(env));
  assert.ok(filesScanned > 0, 'the run wrote reports');
  assert.deepEqual(findings, []);
}

export interface Probe {
  port: number;
  /** The CA to trust; without it the request is plain HTTP. */
  ca?: string;
  /** The TLS SNI; defaults to `host`; '' sends none. */
  servername?: string;
  /** The Host header's name (the port is added). */
  host: string;
  /** GET unless said. */
  method?: string;
  path?: string;
  /** Sent in this order, repeats included. */
  headers?: readonly (readonly [string, string])[];
}

export interface ProbeAnswer {
  status: number;
  /** `error.code` of the body, when it is a spec §7 error. */
  code?: string;
  /** The caching header fields, when the answer has them. */
  cacheControl?: string;
  vary?: string;
  body: string;
  headers: IncomingHttpHeaders;
}

/** A probe's answer: its `error.code` when the body is a spec §7 error, and its caching fields. */
function probeAnswer(status: number, headers: IncomingHttpHeaders, body: string): ProbeAnswer {
  let code: string | undefined;
  try {
    code = (JSON.parse(body) as { error?: { code?: string } }).error?.code;
  } catch {
    code = undefined;
  }
  const { 'cache-control': cacheControl, vary } = headers;
  return {
    status,
    code,
    ...(cacheControl === undefined ? {} : { cacheControl }),
    ...(vary === undefined ? {} : { vary }),
    body,
    headers,
  };
}

/** One request (a GET unless said) to 127.0.0.1, bounded by 10 s. */
export function probe(options: Probe): Promise<ProbeAnswer> {
  const settings = {
    host: '127.0.0.1',
    port: options.port,
    method: options.method ?? 'GET',
    path: options.path ?? '/v1/customers',
    headers: ['Host', `${options.host}:${options.port}`, ...(options.headers ?? []).flat()],
    setHost: false,
    agent: false as const,
    timeout: 10_000,
  };
  return new Promise((resolve, reject) => {
    const onAnswer = (answer: IncomingMessage): void => {
      let body = '';
      answer.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      answer.on('end', () => resolve(probeAnswer(answer.statusCode ?? 0, answer.headers, body)));
    };
    const outgoing =
      options.ca === undefined
        ? httpRequest(settings, onAnswer)
        : httpsRequest(
            { ...settings, ca: options.ca, servername: options.servername ?? options.host },
            onAnswer,
          );
    outgoing.on('timeout', () => outgoing.destroy(new Error('timed out')));
    outgoing.on('error', reject);
    outgoing.end();
  });
}

/**
 * One request (a GET unless said) over HTTP/2 (offered alone by ALPN: a server that picks HTTP/1.1 fails it) to
 * 127.0.0.1, `:authority` the probe's host and port; bounded by 10 s. HTTPS only (`ca` is needed).
 */
export function probeH2(options: Probe & { ca: string }): Promise<ProbeAnswer> {
  return new Promise((resolve, reject) => {
    const session = http2Connect(`https://127.0.0.1:${options.port}`, {
      ca: options.ca,
      servername: options.servername ?? options.host,
    });
    const timer = setTimeout(() => session.destroy(new Error('timed out')), 10_000);
    const failed = (error: Error): void => {
      clearTimeout(timer);
      session.destroy();
      reject(error);
    };
    session.on('error', failed);
    const fields: Record<string, string> = {
      [http2.HTTP2_HEADER_METHOD]: options.method ?? 'GET',
      [http2.HTTP2_HEADER_PATH]: options.path ?? '/v1/customers',
      [http2.HTTP2_HEADER_AUTHORITY]: `${options.host}:${options.port}`,
    };
    for (const [name, value] of options.headers ?? []) fields[name.toLowerCase()] = value;
    const stream = session.request(fields);
    stream.on('error', failed);
    let status = 0;
    const headers: IncomingHttpHeaders = {};
    stream.on('response', (answer) => {
      status = Number(answer[http2.HTTP2_HEADER_STATUS] ?? 0);
      for (const [name, value] of Object.entries(answer))
        if (!name.startsWith(':') && value !== undefined) headers[name] = value;
    });
    let body = '';
    stream.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    stream.on('end', () => {
      clearTimeout(timer);
      session.close();
      resolve(probeAnswer(status, headers, body));
    });
  });
}
