// The HTTP versions the suite speaks to a target over TLS, and how it learns which ones the target
// offers: by ALPN, as every mainstream client does (curl, browsers, Go, .NET and Java offer h2
// first). A rule is run once per protocol, so that a deployment whose HTTP/2 path differs from its
// HTTP/1.1 path (another front, routing on :authority, a header normaliser) is judged on both.
import { connect as tlsConnect, type SecureContext } from 'node:tls';
import { secureContextFor } from './ca-trust.ts';
import { lookupWith, type HostMap } from './host-map.ts';
import { runSettings, type Protocol, type RunSettings } from '../settings.ts';

// What a protocol is, and how --protocols is read, belong to the run's settings.
export { parseProtocols, PROTOCOLS, type Protocol } from '../settings.ts';

/** How reports name a protocol (HAR's httpVersion, curl's flags). */
export const PROTOCOL_NAME: Readonly<Record<Protocol, string>> = { h1: 'HTTP/1.1', h2: 'HTTP/2' };

/**
 * The protocols this run speaks over TLS, as the runner set them (`--protocols`, or what the
 * target offers by ALPN); HTTP/1.1 alone when nothing is set.
 */
export function protocolsOfRun(settings: Pick<RunSettings, 'protocols'> = runSettings()): Protocol[] {
  return [...(settings.protocols ?? ['h1'])];
}

/**
 * The protocols `url`'s host agrees to by ALPN: HTTP/2 when it picks h2; HTTP/1.1 unless it
 * refuses a handshake that offers http/1.1 alone (no_application_protocol: an h2-only port, as
 * Node's `http2.createSecureServer` and gRPC-style gateways have by default). A server without
 * ALPN speaks HTTP/1.1. A handshake that fails otherwise says nothing: HTTP/1.1 only, and the
 * preflight tells what went wrong.
 */
export async function offeredProtocols(
  url: string,
  options: { hosts: HostMap; ca: string[] | undefined; timeoutMs: number },
): Promise<Protocol[]> {
  const probe = {
    lookup: lookupWith(options.hosts),
    secureContext: options.ca ? secureContextFor(options.ca) : undefined,
    timeoutMs: options.timeoutMs,
  };
  const agrees = await alpnAgreesToH2(url, probe);
  if (agrees !== true) return ['h1'];
  return (await alpnChoice(url, ['http/1.1'], probe)) === NONE_IN_COMMON ? ['h2'] : ['h1', 'h2'];
}

/** The server ended the handshake: it speaks none of the protocols offered (RFC 7301 §3.2). */
export const NO_APPLICATION_PROTOCOL = 'ERR_SSL_TLSV1_ALERT_NO_APPLICATION_PROTOCOL';
const NONE_IN_COMMON = null;

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
  if (chosen === NONE_IN_COMMON) return false;
  if (chosen !== 'http/1.1') return chosen === undefined ? undefined : chosen === 'h2';
  return (await alpnChoice(url, ['h2'], options)) === 'h2';
}

/**
 * The protocol `url`'s host picks among `offered` (false: none by ALPN, the server has no ALPN;
 * null: it ended the handshake, none in common), undefined on another failure.
 */
function alpnChoice(
  url: string,
  offered: string[],
  options: AlpnProbe,
): Promise<string | false | null | undefined> {
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
    const done = (chosen: string | false | null | undefined): void => {
      socket.destroy();
      resolve(chosen);
    };
    socket.once('secureConnect', () => done(socket.alpnProtocol ?? false));
    // Offered h2 alone, a server without it may end the handshake (no_application_protocol).
    socket.once('error', (error: NodeJS.ErrnoException) =>
      done(
        error.code === NO_APPLICATION_PROTOCOL ? NONE_IN_COMMON : offered.length === 1 ? false : undefined,
      ),
    );
    socket.once('timeout', () => done(undefined));
  });
}
