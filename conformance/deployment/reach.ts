// How far one base URL can be reached, stage by stage — its name resolved through the host map,
// a TCP connection, a TLS handshake verified for that name, the answer to one keyless GET — and,
// at the first stage that fails, what failed and how to fix it. The preflight asks it of each
// declared URL (preflight.ts); a transport rule asks it of one URL up to its handshake.
import { connect as tcpConnect, type Socket } from 'node:net';
import { checkServerIdentity, connect as tlsConnect, type TLSSocket } from 'node:tls';
import { lookupWith, type HostMap } from '../requests/host-map.ts';
import { secureContextFor } from '../requests/ca-trust.ts';
import type { SetupProblem } from '../../schemas/generated/conformance-report.ts';
import { ALPN_OFFERED } from './tls-evidence.ts';
import type { RecordedExchange } from '../requests/exchange-record.ts';
import { NO_APPLICATION_PROTOCOL, type Protocol } from '../requests/protocols.ts';
import { firstHttp2Status, firstStatusLine } from './first-request.ts';

/** A failed stage; `certificate` when the target answered TLS with a certificate that does not verify. */
export type ReachProblem = Omit<SetupProblem, 'field'> & { certificate?: true };

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
  const at = (stage: SetupProblem['stage'], problem: string, fix: string): ReachProblem => ({
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
  // 421 Misdirected Request to the URL's own host and port: the server reached says it does not
  // serve that authority. Every rule's answer would be that 421, which judges a server the target
  // does not name — a set-up error, not a verdict.
  if (exchange.response?.status === 421) {
    return at(
      'HTTP',
      `GET ${url}/customers was answered 421 Misdirected Request: the request reached a server that does not serve ${hostname}:${port} (a port mapping, proxy or host map sends the name to a server of another host or port)`,
      `send ${hostname}:${port} to the server that serves it: check the URL's port, any port mapping or proxy in front of it, and "hosts" in the target file`,
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
