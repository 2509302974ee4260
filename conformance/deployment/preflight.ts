// Preflight: before any rule, each base URL the target declares is reached stage by stage —
// name resolution (through the host map), TCP connect, TLS handshake verified for that name, one
// plain request that gets an HTTP answer. A stage that fails is a mistake in the set-up (or a
// target that is down), not evidence about the rules: the run stops with SETUP ERROR for the base
// URL under test, and the rules that need another declared URL are not evaluated.
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { connect as tcpConnect, type Socket } from 'node:net';
import { checkServerIdentity, connect as tlsConnect, type TLSSocket } from 'node:tls';
import { lookupWith, type HostMap } from '../requests/host-map.ts';
import { secureContextFor, trustedCas } from '../requests/ca-trust.ts';
import type { ResolvedTarget } from './target.ts';
import type { SetupProblem } from '../../schemas/generated/conformance-report.ts';
import { ALPN_OFFERED, tlsEvidenceOf, type TlsEvidence } from './tls-evidence.ts';
import { connect as http2Connect, constants as h2 } from 'node:http2';
import type { NameValue, RecordedExchange } from '../requests/exchange-record.ts';
import { http1Head, recordPreflightExchange, type PreflightRequest } from './preflight-exchange.ts';
import {
  NO_APPLICATION_PROTOCOL,
  offeredProtocols,
  PROTOCOL_NAME,
  protocolsOfRun,
  type Protocol,
} from '../requests/protocols.ts';

/** One failed stage, as every report shows it (schemas/conformance-report.schema.json). */
export type PreflightProblem = SetupProblem;
export type PreflightStage = SetupProblem['stage'];
/** The base URLs a target declares, by the name the target file gives them. */
export type DeclaredUrl = NonNullable<SetupProblem['field']>;

export interface PreflightResult {
  ok: boolean;
  /** Problems of `baseUrl` or of the target file itself: the run cannot start. */
  blocking: PreflightProblem[];
  /** Problems of another declared URL: the rules that need it are not evaluated. */
  unavailable: PreflightProblem[];
  /** The certificate and protocol of each declared URL whose handshake verified. */
  tls?: TlsEvidence[];
  /**
   * The keyless GET sent to each declared URL that verified, as sent and answered: the run's
   * record (exchanges.har) holds them with the rules' exchanges. Never keys: none is sent.
   */
  exchanges?: RecordedExchange[];
}

const DECLARED_URLS: readonly DeclaredUrl[] = ['baseUrl', 'otherTenantBaseUrl', 'sandboxBaseUrl'];

export async function runPreflight(
  target: ResolvedTarget,
  timeoutMs: number,
  protocols: readonly Protocol[] = protocolsOfRun(),
): Promise<PreflightResult> {
  const fileProblems = checkTargetFiles(target);
  if (fileProblems.length > 0) return { ok: false, blocking: fileProblems, unavailable: [] };
  const ca = trustedCas(target.caFile);
  const checks = DECLARED_URLS.flatMap((field) => {
    const url = target[field];
    return url === undefined ? [] : [{ field, url }];
  });
  const tls: TlsEvidence[] = [];
  const exchanges: RecordedExchange[] = [];
  const found = await Promise.all(
    checks.map(async ({ field, url }): Promise<PreflightProblem[]> => {
      const problem = await reach(url, {
        hosts: target.hosts,
        ca,
        timeoutMs,
        caFileSet: !!target.caFile,
        alpn: alpnOffered(protocols),
        onExchange: (exchange) => exchanges.push(exchange),
        onVerified: (socket) => {
          const { host } = new URL(url);
          const evidence = tlsEvidenceOf(
            socket,
            field,
            host.includes(':') ? host : `${host}:443`,
            alpnOffered(protocols),
          );
          if (evidence) tls.push(evidence);
        },
      });
      return problem
        ? [{ url, field, stage: problem.stage, problem: problem.problem, fix: problem.fix }]
        : [];
    }),
  ).then((lists) => lists.flat());
  const blocking = found.filter((problem) => problem.field === 'baseUrl');
  const unavailable = found.filter((problem) => problem.field !== 'baseUrl');
  // What each verified host offers, so that a report can tell a run that left a protocol out.
  // An h2-only port offers HTTP/2 alone: HTTP/1.1 is then not a protocol the run left out.
  await Promise.all(
    tls.map(async (evidence) => {
      const url = target[evidence.field];
      if (url === undefined) return;
      const offered = await offeredProtocols(url, { hosts: target.hosts, ca, timeoutMs });
      evidence.protocols = offered.map((protocol) => PROTOCOL_NAME[protocol]);
    }),
  );
  // In the order the URLs are declared, whichever handshake ended first.
  tls.sort((a, b) => DECLARED_URLS.indexOf(a.field) - DECLARED_URLS.indexOf(b.field));
  exchanges.sort((a, b) => a.startedAt.localeCompare(b.startedAt));
  return {
    ok: blocking.length === 0,
    blocking,
    unavailable,
    ...(tls.length > 0 ? { tls } : {}),
    ...(exchanges.length > 0 ? { exchanges } : {}),
  };
}

/** The CA file the target names: the schema cannot check that it exists and holds a certificate. */
export function checkTargetFiles(target: Pick<ResolvedTarget, 'caFile' | 'file'>): PreflightProblem[] {
  const problems: PreflightProblem[] = [];
  if (target.caFile !== undefined) {
    const problem = caFileProblem(target.caFile);
    if (problem) {
      problems.push({
        url: target.caFile,
        stage: 'target file',
        problem: `caFile ${target.caFile} ${problem}`,
        fix: `set "caFile" in ${target.file} to the PEM file of the CA that signed the target's certificate (a path relative to the target file), or remove it if a public CA signed it`,
      });
    }
  }
  return problems;
}

function caFileProblem(file: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    return `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`;
  }
  const blocks = text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) return 'holds no PEM certificate (-----BEGIN CERTIFICATE-----)';
  try {
    blocks.forEach((block) => new X509Certificate(block));
  } catch {
    return 'holds a PEM block that is not a valid certificate';
  }
  return undefined;
}

/** A failed stage; `certificate` when the target answered TLS with a certificate that does not verify. */
export type ReachProblem = Omit<PreflightProblem, 'field'> & { certificate?: true };

export interface ReachOptions {
  hosts: HostMap;
  ca: string[] | undefined;
  timeoutMs: number;
  /** Whether the target file names a CA file: it changes the advice for an untrusted chain. */
  caFileSet: boolean;
  /** Called with the socket of a handshake that verified, before anything is sent on it. */
  onVerified?: (socket: TLSSocket) => void;
  /** What the handshake offers by ALPN (default: http/1.1 alone); h2 alone asks the answer over HTTP/2. */
  alpn?: readonly string[];
  /** Called with the keyless GET as sent and answered (or not), for the run's record. */
  onExchange?: (exchange: RecordedExchange) => void;
}

/** What the run needs: http/1.1 when it speaks HTTP/1.1 (ALPN_OFFERED), else h2 alone. */
export function alpnOffered(protocols: readonly Protocol[]): readonly string[] {
  return protocols.includes('h1') ? ALPN_OFFERED : ['h2'];
}

/**
 * The first stage at which `url` cannot be reached, or undefined when it answers HTTP (or, with
 * `upTo: 'TLS'`, when its handshake verifies).
 */
export async function reach(
  url: string,
  options: ReachOptions,
  upTo: 'TLS' | 'HTTP' = 'HTTP',
): Promise<ReachProblem | undefined> {
  const { hostname, port: portText } = new URL(url);
  const port = Number(portText || 443);
  const at = (stage: PreflightStage, problem: string, fix: string): ReachProblem => ({
    url,
    stage,
    problem,
    fix,
  });
  const seconds = `${options.timeoutMs / 1000} s`;

  const address = await resolveName(hostname, options.hosts).catch((error: NodeJS.ErrnoException) => error);
  if (address instanceof Error) {
    return at(
      'resolve',
      `${hostname} does not resolve (${address.code ?? address.message})`,
      `check the host name of the URL, or map it to an address in the target file's "hosts" (e.g. {"*.${hostname.split('.').slice(1).join('.')}": "127.0.0.1"})`,
    );
  }
  const socket = await connectTcp(address, port, options.timeoutMs).catch(
    (error: NodeJS.ErrnoException) => error,
  );
  if (socket instanceof Error) {
    return at(
      'connect',
      socket.code === 'ETIMEDOUT'
        ? `no TCP connection to ${address}:${port} within ${seconds}`
        : `TCP connection to ${address}:${port} failed (${socket.code ?? socket.message})`,
      `check that the target is running and listening on port ${port}, and that "hosts" maps ${hostname} to the right address`,
    );
  }
  const tls = await handshake(socket, hostname, options);
  if ('problem' in tls)
    return { ...at('TLS', tls.problem, tls.fix), ...(tls.certificate ? { certificate: true } : {}) };
  options.onVerified?.(tls.socket);
  if (upTo === 'TLS') {
    tls.socket.destroy();
    return undefined;
  }
  const overHttp2 = tls.socket.alpnProtocol === 'h2';
  const { answered, exchange } = await (overHttp2 ? firstHttp2Status : firstStatusLine)({
    socket: tls.socket,
    hostname,
    port: portText,
    basePath: new URL(url).pathname,
    timeoutMs: options.timeoutMs,
  });
  options.onExchange?.(exchange);
  if (answered !== true) {
    return at(
      'HTTP',
      `no HTTP answer to GET ${url}/customers: ${answered}`,
      `check that ${hostname} serves ${overHttp2 ? 'HTTP/2' : 'HTTP/1.1'} over TLS on port ${port}; a target that accepts connections but never answers is down or overloaded`,
    );
  }
  return undefined;
}

function resolveName(hostname: string, hosts: HostMap): Promise<string> {
  return new Promise((resolve, reject) => {
    lookupWith(hosts)(hostname, {}, (error, address) => {
      if (error) reject(error);
      else resolve(typeof address === 'string' ? address : (address[0]?.address ?? ''));
    });
  });
}

function connectTcp(address: string, port: number, timeoutMs: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = tcpConnect({ host: address, port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' }));
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      resolve(socket);
    });
    socket.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

type Handshake = { socket: TLSSocket } | { problem: string; fix: string; certificate?: true };

/**
 * The handshake is made without rejecting an unverified certificate so that the reason can be
 * named; nothing is sent over a connection that did not verify.
 */
function handshake(tcp: Socket, hostname: string, options: ReachOptions): Promise<Handshake> {
  return new Promise((resolve) => {
    const socket = tlsConnect({
      socket: tcp,
      servername: hostname,
      ...(options.ca ? { secureContext: secureContextFor(options.ca) } : {}),
      rejectUnauthorized: false,
      ALPNProtocols: [...(options.alpn ?? ALPN_OFFERED)],
    });
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({
        problem: `no TLS handshake with ${hostname} within ${options.timeoutMs / 1000} s (the connection was accepted)`,
        fix: 'check that the port serves HTTPS (not plain HTTP or another protocol) and that the target is not overloaded',
      });
    }, options.timeoutMs);
    socket.once('secureConnect', () => {
      clearTimeout(timer);
      const identity = checkServerIdentity(hostname, socket.getPeerCertificate());
      const problem = socket.authorized
        ? identity && nameMismatch(hostname, identity)
        : untrusted(socket, options);
      if (problem) {
        socket.destroy();
        resolve(problem);
      } else {
        resolve({ socket });
      }
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      const offered = options.alpn ?? ALPN_OFFERED;
      resolve(
        error.code === NO_APPLICATION_PROTOCOL
          ? {
              problem: `no application protocol in common: offered ${offered.join(', ')} by ALPN, ${hostname} speaks none of them and ended the handshake (${error.code})`,
              fix: offered.includes('h2')
                ? 'the port does not speak HTTP/2: run with --protocols h1'
                : 'the port does not speak HTTP/1.1 (an h2-only port): run with --protocols h2, or without --protocols to check what it offers',
            }
          : {
              problem: `TLS handshake with ${hostname} failed (${error.code ?? error.message})`,
              fix: 'check that the port serves HTTPS with TLS 1.2 or 1.3',
            },
      );
    });
  });
}

function nameMismatch(hostname: string, error: Error): Handshake {
  return {
    certificate: true,
    problem: `name mismatch: the certificate is not valid for ${hostname} (${error.message})`,
    fix: `check the host name of the URL and that "hosts" maps it to the right server; the certificate must name ${hostname}`,
  };
}

function untrusted(socket: TLSSocket, options: ReachOptions): Handshake {
  const reason = String(socket.authorizationError ?? 'unknown');
  if (reason === 'CERT_HAS_EXPIRED' || reason === 'CERT_NOT_YET_VALID') {
    const certificate = socket.getPeerCertificate();
    return {
      certificate: true,
      problem: `${reason === 'CERT_HAS_EXPIRED' ? 'expired' : 'not yet valid'}: the certificate is valid from ${certificate.valid_from} to ${certificate.valid_to} (${reason})`,
      fix: 'renew the certificate of the target, or check this machine’s clock',
    };
  }
  return {
    certificate: true,
    problem: `untrusted chain: the certificate is signed by a CA this machine does not trust (${reason})`,
    fix: options.caFileSet
      ? 'the caFile of the target file is not the CA that signed this certificate: set caFile to the PEM of that CA'
      : 'the certificate is signed by an unknown CA: set "caFile" in the target file to the PEM of that CA',
  };
}

/** Where the first request goes: the verified socket, the host it names, the base path. */
interface FirstRequest {
  socket: TLSSocket;
  hostname: string;
  port: string;
  basePath: string;
  timeoutMs: number;
}

/** Whether the request got an HTTP answer (true) or why not, and the exchange as sent and answered. */
interface FirstAnswer {
  answered: true | string;
  exchange: RecordedExchange;
}

/** host:port, or the host alone on the scheme's default port. */
function authorityOf({ hostname, port }: FirstRequest): string {
  return port ? `${hostname}:${port}` : hostname;
}

function urlOf(request: FirstRequest): string {
  return `https://${authorityOf(request)}${request.basePath}/customers`;
}

/**
 * Settles once: with what `start` reports through `done`, or with `timedOut()` after the time
 * limit; `cleanUp` (closing the connection) runs either way.
 */
function firstAnswer(
  timeoutMs: number,
  cleanUp: () => void,
  timedOut: () => FirstAnswer,
  start: (done: (result: FirstAnswer) => void) => void,
): Promise<FirstAnswer> {
  return new Promise((resolve) => {
    let settled = false;
    const done = (result: FirstAnswer): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      cleanUp();
      resolve(result);
    };
    const timer = setTimeout(() => done(timedOut()), timeoutMs);
    start(done);
  });
}

/** Over HTTP/2 (an h2-only port): one keyless GET on the verified connection; any status will do. */
function firstHttp2Status(request: FirstRequest): Promise<FirstAnswer> {
  const { socket, basePath } = request;
  const session = http2Connect(`https://${authorityOf(request)}`, { createConnection: () => socket });
  // The fields as sent: the :authority (recorded as the Host it stands for) and Accept.
  const sent: PreflightRequest = {
    url: urlOf(request),
    headers: [
      { name: 'host', value: authorityOf(request) },
      { name: 'accept', value: 'application/json' },
    ],
    protocol: 'h2',
    startedAt: new Date(),
  };
  const failed = (error: string, signal?: string): FirstAnswer => ({
    answered: error,
    exchange: recordPreflightExchange(sent, { error, ...(signal !== undefined ? { signal } : {}) }),
  });
  return firstAnswer(
    request.timeoutMs,
    () => session.destroy(),
    () => failed(`nothing within ${request.timeoutMs / 1000} s`),
    (done) => {
      session.once('error', (error: NodeJS.ErrnoException) => done(failed(`${error.code ?? error.message}`)));
      sent.startedAt = new Date();
      const stream = session.request({
        ':path': `${basePath}/customers`,
        ':authority': authorityOf(request),
        accept: 'application/json',
      });
      stream.once('response', (headers) =>
        done({
          answered: true,
          exchange: recordPreflightExchange(sent, {
            status: Number(headers[h2.HTTP2_HEADER_STATUS]),
            headers: http2Fields(headers),
          }),
        }),
      );
      // A stream refused (at the front's stream limit, or for calm) is an answer of HTTP/2 too: the
      // target is up and speaks it (the rules' requests are sent again, requests/send.ts).
      stream.once('error', (error: NodeJS.ErrnoException) => {
        const refused =
          stream.rstCode === h2.NGHTTP2_REFUSED_STREAM
            ? 'RST_STREAM REFUSED_STREAM'
            : stream.rstCode === h2.NGHTTP2_ENHANCE_YOUR_CALM
              ? 'RST_STREAM ENHANCE_YOUR_CALM'
              : undefined;
        const reason = `${error.code ?? error.message}`;
        done(refused ? { ...failed(reason, refused), answered: true } : failed(reason));
      });
      stream.once('close', () => done(failed('the stream was closed without an answer')));
      stream.resume();
    },
  );
}

/** An HTTP/2 answer's header fields, pseudo-fields aside; a repeated field once per value. */
function http2Fields(headers: Record<string, string | string[] | undefined>): NameValue[] {
  return Object.entries(headers).flatMap(([name, value]) =>
    name.startsWith(':') || value === undefined
      ? []
      : (Array.isArray(value) ? value : [value]).map((one) => ({ name, value: one })),
  );
}

/**
 * Sends one keyless GET and waits for an HTTP status line (any status will do), then for the
 * answer's header fields, which the run's record keeps.
 */
function firstStatusLine(request: FirstRequest): Promise<FirstAnswer> {
  const { socket, basePath } = request;
  const sent: PreflightRequest = {
    url: urlOf(request),
    headers: [
      { name: 'Host', value: authorityOf(request) },
      { name: 'Accept', value: 'application/json' },
      { name: 'Connection', value: 'close' },
    ],
    protocol: 'h1',
    startedAt: new Date(),
  };
  let received = '';
  // A status line read is an answer, whatever happens to the rest of its header fields.
  const ended = (error: string): FirstAnswer => {
    const head = http1Head(received);
    return head
      ? { answered: true, exchange: recordPreflightExchange(sent, head) }
      : { answered: error, exchange: recordPreflightExchange(sent, { error }) };
  };
  return firstAnswer(
    request.timeoutMs,
    () => socket.destroy(),
    () => ended(`nothing within ${request.timeoutMs / 1000} s`),
    (done) => {
      socket.on('data', (chunk: Buffer) => {
        received += chunk.toString('latin1');
        const head = http1Head(received);
        if (head?.complete || (head && received.length > MAX_HEAD)) done(ended(''));
        else if (!head && (received.length > 64 || received.includes('\n')))
          done(ended('the answer is not HTTP/1.1'));
      });
      socket.once('error', (error: NodeJS.ErrnoException) => done(ended(`${error.code ?? error.message}`)));
      socket.once('end', () => done(ended('the connection was closed without an answer')));
      sent.startedAt = new Date();
      socket.write(
        `GET ${basePath}/customers HTTP/1.1\r\n${sent.headers.map(({ name, value }) => `${name}: ${value}\r\n`).join('')}\r\n`,
      );
    },
  );
}

/** Enough for any answer's header fields; a front that sends more is answered, but not recorded further. */
const MAX_HEAD = 64 * 1024;

/** The one-paragraph account of a problem, for the console and every report. */
export function describeProblem(problem: PreflightProblem): string {
  const where = problem.field ? `${problem.field} ${problem.url}` : problem.url;
  return `[${problem.stage}] ${where}: ${problem.problem}. Fix: ${problem.fix}.`;
}
