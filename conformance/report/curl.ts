// A curl command that sends what the suite sent, for a person reproducing a failure by hand. Keys
// appear as the shell expressions the reports show ($NAME, ${NAME%?}, …): the command works once
// the target's variables are exported, and holds no key itself.
import type { ConformanceReport, Evidence } from '../../schemas/generated/conformance-report.ts';
import { mappedAddress } from '../requests/host-map.ts';
import { ON_A_SHARED_CONNECTION, SPLIT_HEADER_BLOCK } from '../requests/raw-client.ts';

export type CurlTarget = Pick<ConformanceReport['target'], 'caFile' | 'hosts'>;

/** A value for the shell: single quotes, or double quotes where it holds a key's expression. */
export function shellQuote(value: string): string {
  if (!value.includes('$')) return `'${value.replace(/'/g, `'\\''`)}'`;
  // The reports put `$` only in front of a key's expression; everything else stays literal.
  return `"${value.replace(/["\\`]/g, (char) => `\\${char}`)}"`;
}

export function curlCommand(evidence: Evidence, target: CurlTarget): string {
  const url = new URL(evidence.url.replace(/\$/g, '%24'));
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  const parts = ['curl', '--include', '--max-time', '15'];
  if (evidence.method !== 'GET' || evidence.requestBody !== undefined)
    parts.push('--request', shellQuote(evidence.method));
  parts.push(...protocolFlags(evidence, url));
  if (url.protocol === 'https:' && target.caFile) parts.push('--cacert', shellQuote(target.caFile));
  const address = target.hosts ? mappedAddress(url.hostname, target.hosts) : undefined;
  if (address !== undefined) parts.push('--resolve', shellQuote(`${url.hostname}:${port}:${address}`));
  for (const { name, value } of evidence.requestHeaders ?? []) {
    // The Host header of the URL is curl's own; another one (an SNI/Host mismatch) is sent.
    if (name.toLowerCase() === 'host' && value.toLowerCase() === url.host.toLowerCase()) continue;
    // `Name;` is curl's way of sending a header with an empty value (`Name:` would remove it).
    parts.push('--header', shellQuote(value === '' ? `${name};` : `${name}: ${value}`));
  }
  if (evidence.requestBody !== undefined) parts.push('--data-raw', shellQuote(evidence.requestBody));
  parts.push(shellQuote(evidence.url));
  const caveat = curlCannotSend(evidence);
  return caveat === undefined ? parts.join(' ') : `${parts.join(' ')}  # ${caveat}`;
}

/**
 * Why curl would send another request than the suite did, if it would: a reproduction must not
 * show a different request without saying so. Only some HTTP/2 requests are out of curl's reach.
 */
function curlCannotSend(evidence: Evidence): string | undefined {
  if (evidence.protocol !== 'HTTP/2') return undefined;
  const note = evidence.note ?? '';
  const hosts = (evidence.requestHeaders ?? []).filter(({ name }) => name.toLowerCase() === 'host');
  if (hosts.length > 1)
    return 'not the same request: curl sends the host once, as :authority; the suite sent a host field beside it';
  if (note.includes(SPLIT_HEADER_BLOCK))
    return 'not the same request: curl sends the header block in one frame; the suite split it';
  if (note.includes(ON_A_SHARED_CONNECTION))
    return "not the same request: curl opens a connection of its own; the suite sent it on another tenant's";
  return undefined;
}

/**
 * curl offers HTTP/2 by ALPN on its own, so the protocol is always said: HTTP/2 over TLS, HTTP/2
 * without TLS by prior knowledge (h2c), or HTTP/1.1 — evidence found over HTTP/1.1 may not show
 * over HTTP/2. Plain HTTP/1.1 needs no flag.
 */
function protocolFlags(evidence: Evidence, url: URL): string[] {
  const overTls = url.protocol === 'https:';
  if (evidence.protocol === 'HTTP/2') return [overTls ? '--http2' : '--http2-prior-knowledge'];
  return overTls ? ['--http1.1'] : [];
}
