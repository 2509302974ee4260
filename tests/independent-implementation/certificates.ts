// A private CA and one leaf certificate signed by it, made fresh in memory for each start. EC
// keys (P-256) rather than RSA, so that the suite meets another key type than the reference's.
import { generate } from 'selfsigned';

export interface Certificates {
  /** PEM of the CA a client must trust (the target file's caFile). */
  caPem: string;
  /** PEM of the leaf's private key and certificate, for the TLS listener. */
  key: string;
  cert: string;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** A CA and a leaf valid for `dnsNames` (wildcards allowed) from yesterday to a week from now. */
export async function makeCertificates(caName: string, dnsNames: readonly string[]): Promise<Certificates> {
  const notBeforeDate = new Date(Date.now() - DAY_MS);
  const notAfterDate = new Date(Date.now() + 7 * DAY_MS);
  const common = { keyType: 'ec', curve: 'P-256', algorithm: 'sha256', notBeforeDate, notAfterDate } as const;
  const ca = await generate([{ name: 'commonName', value: caName }], {
    ...common,
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    ],
  });
  const leaf = await generate([{ name: 'commonName', value: dnsNames[0] ?? 'localhost' }], {
    ...common,
    ca: { key: ca.private, cert: ca.cert },
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: dnsNames.map((value) => ({ type: 2, value })) },
    ],
  });
  return { caPem: ca.cert, key: leaf.private, cert: leaf.cert };
}
