// TLS for the panel hosts (`{tenant}.{domain}`, `sandbox-{tenant}.{domain}`): each served
// tenant's panel host gets a certificate of its own, made when a client first asks for it (SNI)
// and kept in memory. Every other name gets the API's certificate (certificates.ts).
import { createSecureContext, type SecureContext } from 'node:tls';
import type { ServerCertificates } from './certificates.ts';
import { TLS12_CIPHERS } from './tls-ciphers.ts';

type SniCallback = (
  servername: string,
  callback: (error: Error | null, context?: SecureContext) => void,
) => void;

/**
 * @param isServedPanelHost whether a (lower-case) name is the panel host of a served tenant; only
 *   those get a certificate, so the cache is bounded by the tenants, whatever clients send.
 */
export function panelSniCallback(
  certificates: ServerCertificates,
  isServedPanelHost: (hostname: string) => boolean,
): SniCallback {
  const contexts = new Map<string, Promise<SecureContext>>();
  return (servername, callback) => {
    const hostname = servername.toLowerCase();
    if (!isServedPanelHost(hostname)) {
      callback(null); // the default context: the API's certificate
      return;
    }
    let context = contexts.get(hostname);
    if (!context) {
      context = certificates
        .leafFor(hostname)
        .then((leaf) => createSecureContext({ ...leaf, minVersion: 'TLSv1.2', ciphers: TLS12_CIPHERS }));
      contexts.set(hostname, context);
    }
    context.then(
      (made) => callback(null, made),
      (error: unknown) => {
        contexts.delete(hostname);
        callback(error instanceof Error ? error : new Error(String(error)));
      },
    );
  };
}
