// What a customer should weigh before taking a bundle's claim for their deployment: a run whose
// hosts were mapped to loopback or private addresses, a target at such an address, trust that
// came from a private CA, a self-signed certificate, or the embedded reference server. None of
// these makes a bundle invalid — a vendor may well test a staging copy — but each says the
// signature alone does not tie the result to the deployment the customer uses.
import { isIP } from 'node:net';
import type { ConformanceReport } from '../../schemas/generated/conformance-report.ts';

export function claimWarnings(report: ConformanceReport): string[] {
  const targets = [report.target, ...(report.shards ?? []).map((shard) => shard.target)];
  const unique = [...new Map(targets.map((target) => [JSON.stringify(target), target])).values()];
  const certificates = [...(report.tls ?? []), ...(report.shards ?? []).flatMap((shard) => shard.tls ?? [])];
  return [
    ...unique.flatMap((target) => [
      ...(target.mode === 'embedded'
        ? ['The run checked the embedded reference server, not a deployment.']
        : []),
      ...Object.entries(target.hosts ?? {})
        .filter(([, address]) => isPrivateAddress(address))
        .map(
          ([pattern, address]) =>
            `Host map: ${pattern} was sent to ${address}, a loopback or private address — the run reached the machine it ran on or its network, whatever the names say.`,
        ),
      ...(isPrivateHost(urlHost(target.baseUrl))
        ? [`The base URL ${target.baseUrl} is a loopback or private address.`]
        : []),
      ...(target.caFile
        ? [
            `Trust came from a private CA (${target.caFile}) besides the system's: the certificates below need not be ones a public client accepts.`,
          ]
        : []),
    ]),
    ...certificates
      .filter((tls) => tls.subject === tls.issuer)
      .map((tls) => `The certificate of ${tls.host} is self-signed (${tls.subject}).`),
  ];
}

function urlHost(url: string): string {
  try {
    return new URL(url.replace('{free port}', '1')).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return '';
  }
}

function isPrivateHost(host: string): boolean {
  const name = host.toLowerCase();
  return name === 'localhost' || name.endsWith('.localhost') || isPrivateAddress(name);
}

/** Loopback, RFC 1918, link-local, CGNAT, unique-local IPv6 and the unspecified addresses. */
export function isPrivateAddress(address: string): boolean {
  const kind = isIP(address);
  if (kind === 4) {
    const [a = 0, b = 0] = address.split('.').map(Number);
    return (
      a === 127 ||
      a === 10 ||
      a === 0 ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      (a === 169 && b === 254) ||
      (a === 100 && b >= 64 && b <= 127)
    );
  }
  if (kind === 6) {
    const lower = address.toLowerCase();
    if (lower.startsWith('::ffff:')) return isPrivateAddress(lower.slice(7));
    return lower === '::1' || lower === '::' || /^f[cd]/.test(lower) || /^fe[89ab]/.test(lower);
  }
  return false;
}
