// What a verified TLS handshake shows of the deployment under test: the leaf certificate (its
// SHA-256 fingerprint, subject, issuer, validity) and the protocol agreed by ALPN. Recorded in
// every report, so that a report names the deployment it tested, not only its URL.
import { X509Certificate } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import type { TlsEvidence } from '../../schemas/generated/conformance-report.ts';

export type { TlsEvidence };

/**
 * What the preflight's handshake offers. The suite's clients (Playwright's request API and the raw
 * client) speak HTTP/1.1 and send no ALPN extension; offering http/1.1 alone asks the server to
 * confirm that protocol without inviting another one — offering h2 could route the handshake to a
 * different stack than the one the rules then talk to.
 */
export const ALPN_OFFERED: readonly string[] = ['http/1.1'];

export function tlsEvidenceOf(
  socket: TLSSocket,
  field: TlsEvidence['field'],
  host: string,
  offered: readonly string[] = ALPN_OFFERED,
): TlsEvidence | undefined {
  const raw = socket.getPeerCertificate().raw as Buffer | undefined;
  if (!raw || raw.length === 0) return undefined;
  const certificate = new X509Certificate(raw);
  const agreed = socket.alpnProtocol;
  return {
    field,
    host,
    // What the deployment sees as the client: reach.ts reports the run's addresses from it.
    ...(socket.localAddress ? { clientAddress: socket.localAddress } : {}),
    fingerprint256: certificate.fingerprint256,
    subject: oneLine(certificate.subject),
    issuer: oneLine(certificate.issuer),
    validFrom: new Date(certificate.validFrom).toISOString(),
    validTo: new Date(certificate.validTo).toISOString(),
    alpn: { offered: [...offered], agreed: typeof agreed === 'string' ? agreed : null },
  };
}

/** X509Certificate gives one attribute a line; reports show them as one line, like openssl. */
function oneLine(name: string): string {
  return name.split('\n').filter(Boolean).join(', ');
}
