// A correct client of the API, as the client report judges it CLIENT CONFORMANT: HTTPS to the
// tenant's own host, `Authorization: Bearer <key>` without quotes, `Accept: application/json` on
// reads, no tenant id anywhere but the host name, a Read Only key for a client that only reads.
//
//   API_KEY=… npx tsx examples/client.ts [https://acme.api.localhost:8443/v1]
//
// It needs undici (a dependency of the kit: installed with it) and nothing else of the kit's, so
// it runs as copied from node_modules/tenant-auth-conformance/examples/.
//
// Against the local reference server only, two things are local: Node does not resolve
// `*.localhost`, so the dispatcher maps those names to 127.0.0.1 (the TLS SNI and Host stay the
// real name), and the reference's CA (.certs/ca.crt) is trusted. Against a real deployment, drop
// the dispatcher.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { readFileSync } from 'node:fs';
import { Agent, fetch } from 'undici';

/** A `lookup` that answers `*.localhost` with the loopback address and asks DNS for any other name. */
function localhostLookup(
  hostname: string,
  options: { all?: boolean },
  callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
): void {
  if (!hostname.endsWith('.localhost')) return dnsLookup(hostname, { all: options.all === true }, callback);
  if (options.all) callback(null, [{ address: '127.0.0.1', family: 4 }]);
  else callback(null, '127.0.0.1', 4);
}

export interface ClientSettings {
  baseUrl: string;
  apiKey: string;
  /** PEM of a CA to trust besides the system's (the reference server's local CA). */
  ca?: string;
}

export const USER_AGENT = 'example-client/1.0';

export async function listCustomers(settings: ClientSettings): Promise<unknown> {
  const dispatcher = new Agent({
    connect: {
      lookup: localhostLookup,
      ...(settings.ca ? { ca: settings.ca } : {}),
    },
  });
  try {
    const response = await fetch(`${settings.baseUrl}/customers`, {
      headers: {
        Authorization: `Bearer ${settings.apiKey}`,
        Accept: 'application/json',
        'User-Agent': USER_AGENT,
      },
      dispatcher,
    });
    const body = (await response.json()) as { error?: { code: string; message: string } };
    if (!response.ok)
      throw new Error(
        `The API answered ${response.status} ${body.error?.code ?? ''}: ${body.error?.message ?? ''}`,
      );
    return body;
  } finally {
    await dispatcher.close();
  }
}

if (import.meta.filename === process.argv[1]) {
  const apiKey = process.env.API_KEY;
  if (!apiKey) {
    console.error(
      'Set API_KEY to a key (e.g. export API_KEY="$(npm run --silent fixture-key -- key_acme_prod_read)").',
    );
    process.exit(2);
  }
  const caFile = process.env.API_CA_FILE ?? '.certs/ca.crt';
  const customers = await listCustomers({
    baseUrl: process.argv[2] ?? 'https://acme.api.localhost:8443/v1',
    apiKey,
    ca: readFileSync(caFile, 'utf8'),
  });
  console.log(JSON.stringify(customers, null, 2));
}
