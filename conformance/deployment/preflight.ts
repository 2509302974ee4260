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
  const found = await Promise.all(
    checks.map(async ({ field, url }): Promise<PreflightProblem[]> => {
      const problem = await reach(url, {
        hosts: target.hosts,
        ca,
        timeoutMs,
        caFileSet: !!target.caFile,
        alpn: alpnOffered(protocols),
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
  return { ok: blocking.length === 0, blocking, unavailable, ...(tls.length > 0 ? { tls } : {}) };
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
  const answered = await (overHttp2 ? firstHttp2Status : firstStatusLine)({
    socket: tls.socket,
    hostname,
    port: portText,
    basePath: new URL(url).pathname,
    timeoutMs: options.timeoutMs,
  });
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

/** host:port, or the host alone on the scheme's default port. */
function authorityOf({ hostname, port }: FirstRequest): string {
  return port ? `${hostname}:${port}` : hostname;
}

/**
 * Settles once: with what `start` reports through `done`, or "nothing within N s" after the time
 * limit; `cleanUp` (closing the connection) runs either way.
 */
function firstAnswer(
  timeoutMs: number,
  cleanUp: () => void,
  start: (done: (result: true | string) => void) => void,
): Promise<true | string> {
  return new Promise((resolve) => {
    const done = (result: true | string): void => {
      clearTimeout(timer);
      cleanUp();
      resolve(result);
    };
    const timer = setTimeout(() => done(`nothing within ${timeoutMs / 1000} s`), timeoutMs);
    start(done);
  });
}

/** Over HTTP/2 (an h2-only port): one keyless GET on the verified connection; any status will do. */
function firstHttp2Status(request: FirstRequest): Promise<true | string> {
  const { socket, basePath } = request;
  const session = http2Connect(`https://${authorityOf(request)}`, { createConnection: () => socket });
  return firstAnswer(
    request.timeoutMs,
    () => session.destroy(),
    (done) => {
      session.once('error', (error: NodeJS.ErrnoException) => done(`${error.code ?? error.message}`));
      const stream = session.request({ ':path': `${basePath}/customers`, accept: 'application/json' });
      stream.once('response', () => done(true));
      // A stream refused (at the front's stream limit, or for calm) is an answer of HTTP/2 too: the
      // target is up and speaks it (the rules' requests are sent again, requests/send.ts).
      stream.once('error', (error: NodeJS.ErrnoException) =>
        done(
          stream.rstCode === h2.NGHTTP2_REFUSED_STREAM || stream.rstCode === h2.NGHTTP2_ENHANCE_YOUR_CALM
            ? true
            : `${error.code ?? error.message}`,
        ),
      );
      stream.once('close', () => done('the stream was closed without an answer'));
      stream.resume();
    },
  );
}

/** Sends one keyless GET and waits for an HTTP status line: any status will do. */
function firstStatusLine(request: FirstRequest): Promise<true | string> {
  const { socket, basePath } = request;
  return firstAnswer(
    request.timeoutMs,
    () => socket.destroy(),
    (done) => {
      let received = '';
      socket.on('data', (chunk: Buffer) => {
        received += chunk.toString('latin1');
        if (/^HTTP\/1\.[01] \d{3}/.test(received)) done(true);
        else if (received.length > 64 || received.includes('\n')) done('the answer is not HTTP/1.1');
      });
      socket.once('error', (error: NodeJS.ErrnoException) => done(`${error.code ?? error.message}`));
      socket.once('end', () => done('the connection was closed without an answer'));
      socket.write(
        `GET ${basePath}/customers HTTP/1.1\r\nHost: ${authorityOf(request)}\r\nAccept: application/json\r\nConnection: close\r\n\r\n`,
      );
    },
  );
}

/** The one-paragraph account of a problem, for the console and every report. */
export function describeProblem(problem: PreflightProblem): string {
  const where = problem.field ? `${problem.field} ${problem.url}` : problem.url;
  return `[${problem.stage}] ${where}: ${problem.problem}. Fix: ${problem.fix}.`;
}
