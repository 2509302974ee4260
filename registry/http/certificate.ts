// The registry's TLS certificate when none is given (--cert/--key): a leaf for `localhost` signed
// by the kit's local CA in the certificate directory (the reference server's: a user who trusts it
// once trusts both). A registry others reach is given its own certificate.
import { readFileSync } from 'node:fs';
import { ensureCertificates } from '../../reference-server/listeners/certificates.ts';

export interface RegistryTls {
  key: string;
  cert: string;
  /** The CA a client trusts, when the certificate is the local CA's. */
  caPath?: string;
}

export async function registryTls(options: {
  certFile?: string;
  keyFile?: string;
  certDir: string;
}): Promise<RegistryTls> {
  if (options.certFile !== undefined && options.keyFile !== undefined)
    return { cert: readFileSync(options.certFile, 'utf8'), key: readFileSync(options.keyFile, 'utf8') };
  const certificates = await ensureCertificates(options.certDir, 'localhost');
  const leaf = await certificates.leafFor('localhost');
  return { ...leaf, caPath: certificates.caPath };
}
