// A local CONNECT proxy that resolves host names through the target's host map. Playwright's
// request API has no host-resolution option, but its `proxy` option tunnels every request
// (http and https alike) with CONNECT; the tunnel carries the client's own TLS, so SNI, the
// Host header and certificate verification stay exactly what they would be without the proxy.
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { once } from 'node:events';
import { lookupWith, type HostMap } from './host-map.ts';

export interface ConnectProxy {
  /** `http://127.0.0.1:PORT`, for Playwright's `proxy.server`. */
  url: string;
  close(): Promise<void>;
}

/** Marks an answer made by this proxy, not by the target. */
export const PROXY_ERROR_HEADER = 'X-Conformance-Proxy-Error';

/** How long a tunnel may stay open: a run sends a bounded number of short requests. */
const TUNNEL_IDLE_TIMEOUT_MS = 30_000;

export async function startConnectProxy(hosts: HostMap): Promise<ConnectProxy> {
  const lookup = lookupWith(hosts);
  const tunnels = new Set<Socket>();
  const server: Server = createServer((_req, res) => {
    res.writeHead(405, { 'Content-Type': 'text/plain' }).end('This proxy only tunnels with CONNECT.\n');
  });
  server.on('connect', (req, client: Socket, head: Buffer) => {
    const { hostname, port } = new URL(`http://${req.url ?? ''}`);
    const upstream = connect({ host: hostname.replace(/^\[|\]$/g, ''), port: Number(port || 443), lookup });
    for (const socket of [client, upstream]) {
      tunnels.add(socket);
      socket.setTimeout(TUNNEL_IDLE_TIMEOUT_MS, () => socket.destroy());
      socket.on('close', () => tunnels.delete(socket));
    }
    upstream.once('connect', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.once('error', (error: NodeJS.ErrnoException) => {
      // Playwright takes a failed CONNECT's answer for the target's own answer; the marker header
      // lets ApiClient turn it back into what it is: no response from the target at all.
      if (client.writable) {
        client.end(
          `HTTP/1.1 502 Bad Gateway\r\n${PROXY_ERROR_HEADER}: ${error.code ?? 'error'}\r\nContent-Length: 0\r\n\r\n`,
        );
      } else {
        client.destroy();
      }
    });
    client.once('error', () => upstream.destroy());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      for (const socket of tunnels) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
