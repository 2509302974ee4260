// A private CA and leaf certificates signed by it, made fresh in memory for each start. EC
// keys (P-256) rather than RSA, so that the suite meets another key type than the reference's.
import { randomBytes } from 'node:crypto';
import { generate } from 'selfsigned';

export interface Certificates {
  /** PEM of the CA a client must trust (the target file's caFile). */
  caPem: string;
  /** PEM of the leaf's private key and certificate, for the TLS listener. */
  key: string;
  cert: string;
}

export interface CertificateSet {
  /** PEM of the CA a client must trust (the target file's caFile). */
  caPem: string;
  /** One leaf per list of names given, in that order. */
  leaves: { key: string; cert: string }[];
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** A CA and a leaf valid for `dnsNames` (wildcards allowed) from yesterday to a week from now. */
export async function makeCertificates(caName: string, dnsNames: readonly string[]): Promise<Certificates> {
  const { caPem, leaves } = await makeCertificateSet(caName, [dnsNames]);
  const [leaf = { key: '', cert: '' }] = leaves;
  return { caPem, ...leaf };
}

/** A CA and one leaf for each list of names in `leafNames`, all valid from yesterday to a week from now. */
export async function makeCertificateSet(
  caName: string,
  leafNames: readonly (readonly string[])[],
): Promise<CertificateSet> {
  const notBeforeDate = new Date(Date.now() - DAY_MS);
  const notAfterDate = new Date(Date.now() + 7 * DAY_MS);
  const common = { keyType: 'ec', curve: 'P-256', algorithm: 'sha256', notBeforeDate, notAfterDate } as const;
  // A name of its own, as two operators' CAs have: OpenSSL looks a leaf's issuer up by name, so
  // that several deployments trusted at once (a batch of runs, tests/support/batched-runs.ts) each
  // find their own CA, not another one of the same name.
  const uniqueName = `${caName} ${randomBytes(4).toString('hex')}`;
  const ca = await generate([{ name: 'commonName', value: uniqueName }], {
    ...common,
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    ],
  });
  const leaves = await Promise.all(
    leafNames.map(async (dnsNames) => {
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
      return { key: leaf.private, cert: leaf.cert };
    }),
  );
  return { caPem: ca.cert, leaves };
}
