// `verify --check-live`: ties a bundle to the deployment a customer uses. Each host whose
// certificate the bundle records is reached now, through the customer's own name resolution, and
// its leaf certificate's fingerprint and ALPN answer are compared with the bundle's. The
// certificate is compared, not trusted: the handshake accepts any chain, and only an exact
// fingerprint counts (a renewed certificate shows as a difference, to be judged by its dates).
// With `--check-live --via-host-map`, the names are sent where the run's host map sent them
// instead: a certifier who reproduces a staging or loopback set-up checks that what answers there
// now is what the run saw, which the customer's own resolution could not reach.
import { X509Certificate } from 'node:crypto';
import { connect } from 'node:tls';
import type { ConformanceReport, TlsEvidence } from '../../schemas/generated/conformance-report.ts';
import { mappedAddress, type HostMap } from '../requests/host-map.ts';

export interface LiveHost {
  host: string;
  fingerprint256?: string;
  alpn?: string | false;
  problem?: string;
}

/** What differs between each recorded host and what it presents now; empty when all match. */
export async function checkLive(
  report: ConformanceReport,
  timeoutMs = 10_000,
  options: { viaHostMap?: boolean } = {},
): Promise<{ hosts: LiveHost[]; differences: string[] }> {
  const recorded = report.tls ?? [];
  const hostMap: HostMap = options.viaHostMap ? (report.target.hosts ?? {}) : {};
  const byHost = new Map<string, TlsEvidence>(recorded.map((tls) => [tls.host, tls]));
  if (byHost.size === 0)
    return {
      hosts: [],
      differences: [
        'The bundle records no certificate to compare: the run did not reach its target over TLS.',
      ],
    };
  const hosts = await Promise.all([...byHost.keys()].map((host) => handshake(host, timeoutMs, hostMap)));
  const differences = hosts.flatMap((live): string[] => {
    const tls = byHost.get(live.host);
    if (!tls) return [];
    if (live.problem) return [`${live.host}: ${live.problem}`];
    const found: string[] = [];
    if (live.fingerprint256 !== tls.fingerprint256)
      found.push(
        `${live.host} presents certificate SHA-256 ${live.fingerprint256 ?? 'none'}; the bundle's run saw ${tls.fingerprint256}.`,
      );
    const h2Now = live.alpn === 'h2';
    if (tls.protocols && tls.protocols.includes('HTTP/2') !== h2Now)
      found.push(
        `${live.host} ${h2Now ? 'offers' : 'does not offer'} HTTP/2 by ALPN now; the bundle's run found ${tls.protocols.join(' and ')}.`,
      );
    return found;
  });
  return { hosts, differences };
}

function handshake(host: string, timeoutMs: number, hostMap: HostMap): Promise<LiveHost> {
  const { hostname, port } = new URL(`https://${host}`);
  const name = hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve) => {
    const socket = connect({
      host: mappedAddress(name, hostMap) ?? name,
      port: Number(port || 443),
      servername: /^[\d.]+$|:/.test(name) ? undefined : name,
      rejectUnauthorized: false,
      ALPNProtocols: ['h2', 'http/1.1'],
    });
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ host, problem: `no TLS handshake within ${timeoutMs / 1000} s` });
    }, timeoutMs);
    socket.once('secureConnect', () => {
      clearTimeout(timer);
      const raw = socket.getPeerCertificate().raw as Buffer | undefined;
      const alpn = socket.alpnProtocol;
      socket.destroy();
      resolve({
        host,
        ...(raw?.length ? { fingerprint256: new X509Certificate(raw).fingerprint256 } : {}),
        alpn: typeof alpn === 'string' ? alpn : false,
      });
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      resolve({ host, problem: `cannot be reached now (${error.code ?? error.message})` });
    });
  });
}
