// What a customer should weigh before taking a bundle's claim for their deployment: a run whose
// hosts were mapped to loopback or private addresses, a target at such an address, trust that
// came from a private CA, a self-signed certificate, plain HTTP probed elsewhere than the base
// URL's host on port 80, or the embedded reference server. None of
// these makes a bundle invalid — a vendor may well test a staging copy — but each says the
// signature alone does not tie the result to the deployment the customer uses.
import ipaddr from 'ipaddr.js';
import { catalogDigest } from '../report/provenance.ts';
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
            `Host map: ${pattern} was sent to ${address}, a loopback or private address (or another that is not public) — the run reached the machine it ran on or its network, whatever the names say.`,
        ),
      ...(isPrivateHost(urlHost(target.baseUrl))
        ? [`The base URL ${target.baseUrl} is a loopback or private address (or another that is not public).`]
        : []),
      ...(target.plainHttpBaseUrl !== undefined &&
      !isDefaultPlainHttp(target.plainHttpBaseUrl, target.baseUrl)
        ? [
            `Plain HTTP was probed at ${target.plainHttpBaseUrl}, not at the base URL's host on port 80 (${defaultPlainHttpOrigin(target.baseUrl)}): the plain-HTTP rules pass on a refused connection, so they say nothing of plain HTTP where the base URL is.`,
          ]
        : []),
      ...(target.trust ?? [])
        .filter((source) => !source.startsWith('NODE_OPTIONS='))
        .map(
          (source) =>
            `Trust came from the run's environment too (${source}): the certificates below need not be ones a public client accepts.`,
        ),
      ...(target.caFile
        ? [
            `Trust came from a private CA (${target.caFile}) besides the system's: the certificates below need not be ones a public client accepts.`,
          ]
        : []),
    ]),
    ...certificates
      .filter((tls) => tls.subject === tls.issuer)
      .map((tls) => `The certificate of ${tls.host} is self-signed (${tls.subject}).`),
    ...(report.catalog && report.catalog.sha256 !== catalogDigest().sha256
      ? [
          `The report's rule catalog (sha256 ${report.catalog.sha256}, ${report.catalog.rules} rules, kit ${report.suite.version}) is not this kit's (sha256 ${catalogDigest().sha256}): the rules' levels and statements are the report's own; check the bundle with the kit that made it.`,
        ]
      : []),
  ];
}

function urlHost(url: string): string {
  try {
    return new URL(url.replace('{free port}', '1')).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return '';
  }
}

/**
 * Whether the plain-HTTP probes went where they go by default: http:// to the base URL's host on
 * port 80 (the path aside). A refused connection passes those rules, so a probe sent anywhere else
 * (another host, a closed port) can pass them for a host that serves keys over plain HTTP.
 */
function isDefaultPlainHttp(plainHttpBaseUrl: string, baseUrl: string): boolean {
  const probed = parsedUrl(plainHttpBaseUrl);
  const base = parsedUrl(baseUrl);
  return (
    probed !== undefined &&
    base !== undefined &&
    probed.protocol === 'http:' &&
    probed.port === '' &&
    probed.hostname.toLowerCase() === base.hostname.toLowerCase()
  );
}

function defaultPlainHttpOrigin(baseUrl: string): string {
  const base = parsedUrl(baseUrl);
  return base ? `http://${base.hostname}` : `the host of ${baseUrl}`;
}

function parsedUrl(url: string): URL | undefined {
  try {
    return new URL(url.replace('{free port}', '1'));
  } catch {
    return undefined;
  }
}

function isPrivateHost(host: string): boolean {
  const name = host.toLowerCase();
  return name === 'localhost' || name.endsWith('.localhost') || isPrivateAddress(name);
}

/**
 * Whether `address` is any IP address but a public unicast one (ipaddr.js's ranges: loopback,
 * private, link-local, carrier-grade NAT, unique-local, unspecified, reserved, …), in any form a
 * resolver takes: `127.1`, `0x7f.0.0.1`, `0::1`, `::0:1`, and an IPv4 address carried in IPv6
 * (`::ffff:7f00:1`, NAT64's `64:ff9b::7f00:1`, 6to4's `2002:7f00:1::`) judged as the IPv4 one.
 * A name that is not an address is not one: false.
 */
export function isPrivateAddress(address: string): boolean {
  const text = address.replace(/^\[|\]$/g, '');
  if (!ipaddr.isValid(text)) return false;
  const parsed = ipaddr.parse(text);
  const carried = parsed.kind() === 'ipv6' ? carriedIpv4(parsed as ipaddr.IPv6) : undefined;
  return (carried ?? parsed).range() !== 'unicast';
}

/** The IPv4 address an IPv6 one carries (mapped, translated, NAT64, 6to4), if it carries one. */
function carriedIpv4(address: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const bytes = address.toByteArray();
  const range = address.range();
  if (range === 'ipv4Mapped' || range === 'rfc6145' || range === 'rfc6052')
    return new ipaddr.IPv4(bytes.slice(12, 16));
  if (range === '6to4') return new ipaddr.IPv4(bytes.slice(2, 6));
  return undefined;
}
