// The reference server's certificates: a local CA, created once and kept in the certificate
// directory so that a user trusts it once (curl --cacert, NODE_EXTRA_CA_CERTS), and a leaf
// certificate signed by it whose SANs cover every tenant's production and sandbox API host, every
// tenant's panel hosts, and the admin API host.
import { X509Certificate, randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { adminHostname } from '../http/hosts.ts';

/** Under the current directory, never inside an installed package. */
export const DEFAULT_CERT_DIR = resolve('.certs');

export interface ServerCertificates {
  /** PEM of the CA certificate, the one file a client needs to trust. */
  caPath: string;
  key: string;
  cert: string;
  /** Whether an existing CA and leaf were reused (start-up then costs no key generation). */
  reused: boolean;
  /** A new leaf for one more host name, signed by the same CA (a panel host, on first use). */
  leafFor(hostname: string): Promise<{ key: string; cert: string }>;
}

const CA_VALIDITY_DAYS = 3650;
const LEAF_VALIDITY_DAYS = 365;
/** A leaf closer than this to its expiry is replaced at start-up. */
const LEAF_RENEWAL_MARGIN_DAYS = 30;
const DAY_MS = 24 * 60 * 60 * 1000;

/** The host names the API's leaf certificate covers for a domain. */
export function leafHostnames(domain: string): string[] {
  // `*.api.{domain}` covers `{tenant}.api.{domain}` and `sandbox-{tenant}.api.{domain}` alike.
  // Panel hosts are not named here: they get a leaf of their own on first use (`leafFor`), since
  // a list of every tenant's panel hosts grows with the tenants (10 000 tenants exceed what the
  // certificate library can encode, and every handshake would carry it) and Node and Chromium
  // refuse a wildcard directly under a one-label domain such as `*.localhost`.
  return [`*.api.${domain}`, `api.${domain}`, adminHostname(domain)];
}

export async function ensureCertificates(certDir: string, domain: string): Promise<ServerCertificates> {
  mkdirSync(certDir, { recursive: true, mode: 0o700 });
  const caPath = join(certDir, 'ca.crt');
  const caKeyPath = join(certDir, 'ca.key');
  let reused = true;

  let ca = readPair(caPath, caKeyPath);
  if (!ca || hasSharedName(ca.cert)) {
    reused = false;
    const fresh = await generateCa();
    // Two processes starting at once must end up with the same CA: the first to link its files
    // wins and the other reads them. A bundle file is linked first, as the lock. Its name is not
    // the one of the CAs that shared a name (`ca.bundle`), so that such a CA is replaced once too.
    ca = createOnce(join(certDir, 'ca-named.bundle'), fresh) ?? fresh;
    publish(caKeyPath, ca.key);
    publish(caPath, ca.cert);
  }

  const leafPath = join(certDir, `${domain}.crt`);
  const leafKeyPath = join(certDir, `${domain}.key`);
  let leaf = readPair(leafPath, leafKeyPath);
  const hostnames = leafHostnames(domain);
  if (!leaf || !leafIsUsable(leaf.cert, ca.cert, hostnames)) {
    reused = false;
    leaf = await generateLeaf(ca, hostnames);
    publish(leafKeyPath, leaf.key);
    publish(leafPath, leaf.cert);
  }
  const signingCa = ca;
  return {
    caPath,
    key: leaf.key,
    cert: leaf.cert,
    reused,
    leafFor: (hostname) => generateLeaf(signingCa, [hostname]),
  };
}

interface PemPair {
  cert: string;
  key: string;
}

/** Loaded only to make a certificate: most starts reuse theirs, and loading it is a large share of start-up CPU. */
function certificateGenerator(): Promise<typeof import('selfsigned')> {
  return import('selfsigned');
}

/** The name every CA had before each got one of its own (generateCa): such a CA is replaced. */
const SHARED_CA_SUBJECT = 'CN=Tenant API conformance kit local CA';

function hasSharedName(caCert: string): boolean {
  try {
    return new X509Certificate(caCert).subject === SHARED_CA_SUBJECT;
  } catch {
    return false;
  }
}

async function generateCa(): Promise<PemPair> {
  const { generate } = await certificateGenerator();
  const notBeforeDate = new Date(Date.now() - DAY_MS);
  // A name of its own: a client that trusts two of these CAs (another server's, from an earlier
  // NODE_EXTRA_CA_CERTS) finds a certificate's issuer by name, and with one name for both it may
  // check the signature against the wrong CA and fail ("certificate signature failure").
  const name = `Tenant API conformance kit local CA ${randomBytes(6).toString('hex')}`;
  const pems = await generate([{ name: 'commonName', value: name }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate: new Date(notBeforeDate.getTime() + CA_VALIDITY_DAYS * DAY_MS),
    extensions: [
      { name: 'basicConstraints', cA: true, pathLenConstraint: 0, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    ],
  });
  return { cert: pems.cert, key: pems.private };
}

async function generateLeaf(ca: PemPair, hostnames: readonly string[]): Promise<PemPair> {
  const { generate } = await certificateGenerator();
  const notBeforeDate = new Date(Date.now() - DAY_MS);
  const pems = await generate([{ name: 'commonName', value: hostnames[0] ?? '' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate: new Date(notBeforeDate.getTime() + LEAF_VALIDITY_DAYS * DAY_MS),
    ca,
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: hostnames.map((value) => ({ type: 2, value })) },
    ],
  });
  return { cert: pems.cert, key: pems.private };
}

function leafIsUsable(leafPem: string, caPem: string, hostnames: readonly string[]): boolean {
  try {
    const leaf = new X509Certificate(leafPem);
    const signedByCa = leaf.verify(new X509Certificate(caPem).publicKey);
    const fresh = new Date(leaf.validTo).getTime() - Date.now() > LEAF_RENEWAL_MARGIN_DAYS * DAY_MS;
    // Exactly the wanted names: a tenant added or removed renews the leaf.
    const wanted = hostnames.map((name) => `DNS:${name}`).sort();
    const present = (leaf.subjectAltName ?? '').split(', ').sort();
    const sameNames = wanted.length === present.length && wanted.every((name, i) => name === present[i]);
    return signedByCa && fresh && sameNames;
  } catch {
    return false;
  }
}

function readPair(certPath: string, keyPath: string): PemPair | undefined {
  try {
    return { cert: readFileSync(certPath, 'utf8'), key: readFileSync(keyPath, 'utf8') };
  } catch {
    return undefined;
  }
}

/** Links `pair` at `path` unless a file is there; returns what is there after that. */
function createOnce(path: string, pair: PemPair): PemPair | undefined {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${pair.key}\n${pair.cert}`, { mode: 0o600 });
  try {
    linkSync(temporary, path);
    return pair;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const [key, cert] = splitBundle(readFileSync(path, 'utf8'));
    return { key, cert };
  } finally {
    rmSync(temporary, { force: true });
  }
}

function splitBundle(bundle: string): [string, string] {
  const at = bundle.indexOf('-----BEGIN CERTIFICATE-----');
  return [bundle.slice(0, at).trim() + '\n', bundle.slice(at)];
}

/** Replaces a file atomically, so that a reader never sees half of it. */
function publish(path: string, content: string): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, content, { mode: path.endsWith('.key') ? 0o600 : 0o644 });
  renameSync(temporary, path);
}
