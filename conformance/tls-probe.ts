// A TLS handshake with certificate and host-name verification, to tell "served over HTTPS with
// a valid certificate for the tenant host" apart from any other failure.
import { connect, rootCertificates } from 'node:tls';
import { readFileSync } from 'node:fs';
import { lookupWith, type HostMap } from './host-map.ts';

export interface HandshakeResult {
  ok: boolean;
  /** Why verification failed, e.g. ERR_TLS_CERT_ALTNAME_INVALID or SELF_SIGNED_CERT_IN_CHAIN. */
  error?: string;
  protocol?: string;
}

export function verifiedHandshake(
  url: string,
  hosts: HostMap,
  caFile: string | undefined,
  timeoutMs = 10_000,
): Promise<HandshakeResult> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({
      host: hostname,
      port: Number(port || 443),
      servername: hostname,
      lookup: lookupWith(hosts),
      ca: caFile === undefined ? undefined : [...rootCertificates, readFileSync(caFile, 'utf8')],
      rejectUnauthorized: true,
      timeout: timeoutMs,
    });
    socket.once('secureConnect', () => {
      resolve({ ok: socket.authorized, protocol: socket.getProtocol() ?? undefined });
      socket.end();
    });
    socket.once('timeout', () =>
      socket.destroy(Object.assign(new Error('TLS handshake timed out'), { code: 'ETIMEDOUT' })),
    );
    socket.once('error', (error: NodeJS.ErrnoException) =>
      resolve({ ok: false, error: `${error.code ?? ''} ${error.message}`.trim() }),
    );
  });
}
