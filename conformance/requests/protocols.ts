// The HTTP versions the suite speaks to a target over TLS, and how it learns which ones the target
// offers: by ALPN, as every mainstream client does (curl, browsers, Go, .NET and Java offer h2
// first). A rule is run once per protocol, so that a deployment whose HTTP/2 path differs from its
// HTTP/1.1 path (another front, routing on :authority, a header normaliser) is judged on both.
import { connect as tlsConnect, createSecureContext, type SecureContext } from 'node:tls';
import { lookupWith, type HostMap } from './host-map.ts';
import { ENV } from '../env.ts';

export type Protocol = 'h1' | 'h2';

export const PROTOCOLS: readonly Protocol[] = ['h1', 'h2'];

/** How reports name a protocol (HAR's httpVersion, curl's flags). */
export const PROTOCOL_NAME: Readonly<Record<Protocol, string>> = { h1: 'HTTP/1.1', h2: 'HTTP/2' };

/** `h1,h2` as given to --protocols; undefined with the reason when it names anything else. */
export function parseProtocols(text: string): { protocols: Protocol[] } | { error: string } {
  const names = text
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);
  const unknown = names.filter((name) => !(PROTOCOLS as readonly string[]).includes(name));
  if (names.length === 0 || unknown.length > 0)
    return { error: `name h1, h2 or both, separated by a comma (got "${text}")` };
  return { protocols: PROTOCOLS.filter((protocol) => names.includes(protocol)) };
}

/**
 * The protocols this run speaks over TLS, as the runner set them (`--protocols`, or what the
 * target offers by ALPN); HTTP/1.1 alone when nothing (or nothing readable) is set.
 */
export function protocolsOfRun(env: NodeJS.ProcessEnv = process.env): Protocol[] {
  const parsed = parseProtocols(env[ENV.protocols] ?? 'h1');
  return 'protocols' in parsed ? parsed.protocols : ['h1'];
}

/**
 * The protocols `url`'s host agrees to by ALPN when offered both: HTTP/1.1 always (the suite's
 * other clients speak it, and a TLS server without ALPN speaks it), HTTP/2 when it picks h2. A
 * handshake that fails says nothing: HTTP/1.1 only, and the preflight tells what went wrong.
 */
export async function offeredProtocols(
  url: string,
  options: { hosts: HostMap; ca: string[] | undefined; timeoutMs: number },
): Promise<Protocol[]> {
  const agrees = await alpnAgreesToH2(url, {
    lookup: lookupWith(options.hosts),
    secureContext: options.ca ? createSecureContext({ ca: options.ca }) : undefined,
    timeoutMs: options.timeoutMs,
  });
  return agrees === true ? ['h1', 'h2'] : ['h1'];
}

interface AlpnProbe {
  lookup: ReturnType<typeof lookupWith>;
  secureContext: SecureContext | undefined;
  timeoutMs: number;
}

/**
 * Whether `url`'s host speaks HTTP/2 by ALPN (true or false), or undefined when the handshake did
 * not complete: then nothing is known of it. Offered h2 and http/1.1, a server may prefer
 * http/1.1 and still speak h2 to a client that offers only h2 (as h2-only clients do): such a
 * server is asked again, offered h2 alone.
 */
export async function alpnAgreesToH2(url: string, options: AlpnProbe): Promise<boolean | undefined> {
  const chosen = await alpnChoice(url, ['h2', 'http/1.1'], options);
  if (chosen !== 'http/1.1') return chosen === undefined ? undefined : chosen === 'h2';
  return (await alpnChoice(url, ['h2'], options)) === 'h2';
}

/** The protocol `url`'s host picks among `offered` (false: none by ALPN), undefined on failure. */
function alpnChoice(url: string, offered: string[], options: AlpnProbe): Promise<string | false | undefined> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = tlsConnect({
      host: hostname,
      port: Number(port || 443),
      servername: hostname,
      lookup: options.lookup,
      ...(options.secureContext ? { secureContext: options.secureContext } : {}),
      ALPNProtocols: offered,
      timeout: options.timeoutMs,
    });
    const done = (chosen: string | false | undefined): void => {
      socket.destroy();
      resolve(chosen);
    };
    socket.once('secureConnect', () => done(socket.alpnProtocol ?? false));
    // Offered h2 alone, a server without it may end the handshake (no_application_protocol).
    socket.once('error', () => done(offered.length === 1 ? false : undefined));
    socket.once('timeout', () => done(undefined));
  });
}
