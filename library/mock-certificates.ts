// Where the mock's CA and server certificate come from. Making them costs a key pair each (about
// 165 ms, the first time in a process nearly a second with the library's load), so they are made
// once per user, in a cache directory of that user's own, and reused: a start without `certDir`
// uses the cache; a start with a `certDir` that holds no CA yet gets a copy of the cached ones
// (files, no key made). `freshCertificates: true` asks for new ones instead.
import { chmodSync, copyFileSync, existsSync, lstatSync, mkdirSync, mkdtempSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureCertificates } from '../reference-server/listeners/certificates.ts';

export interface CertificateDirectory {
  directory: string;
  /** Made for this start alone: removed when the mock closes. */
  temporary: boolean;
}

/** Owned by this user, a real directory (no link), and closed to everyone else. */
function isPrivateDirectory(path: string): boolean {
  const stat = lstatSync(path);
  const ours = process.getuid === undefined || stat.uid === process.getuid();
  return stat.isDirectory() && ours && (stat.mode & 0o077) === 0;
}

/**
 * This user's certificate cache: `tenant-auth-conformance-{uid}/certs` under the system's temporary
 * directory, both levels this user's own and closed to others. Undefined when either is not (a
 * directory another user made first is never trusted).
 */
export function userCertificateCache(): string | undefined {
  const parent = join(tmpdir(), `tenant-auth-conformance-${process.getuid?.() ?? 'user'}`);
  const directory = join(parent, 'certs');
  try {
    mkdirSync(directory, { recursive: true, mode: 0o700 });
    return isPrivateDirectory(parent) && isPrivateDirectory(directory) ? directory : undefined;
  } catch {
    return undefined;
  }
}

/** Copies a file into place whole (a reader sees the old file, none, or the new one), readable by its owner only. */
function copyInto(source: string, target: string): void {
  const temporary = `${target}.${process.pid}.tmp`;
  copyFileSync(source, temporary);
  chmodSync(temporary, 0o600);
  renameSync(temporary, target);
}

/**
 * Fills `certDir` from this user's cache (making the cached certificates first if there are none)
 * when it holds no CA yet. Each key is in place before its certificate, which is what the server
 * looks for, so that a start reading the directory meanwhile never finds a certificate without
 * its key.
 */
async function seedFromCache(certDir: string, domain: string): Promise<void> {
  if (existsSync(join(certDir, 'ca.crt'))) return;
  const cache = userCertificateCache();
  if (cache === undefined) return;
  await ensureCertificates(cache, domain);
  mkdirSync(certDir, { recursive: true, mode: 0o700 });
  for (const name of ['ca.key', `${domain}.key`, `${domain}.crt`, 'ca.crt'])
    copyInto(join(cache, name), join(certDir, name));
}

/** The directory the mock's server takes its certificates from, for the options given. */
export async function certificateDirectory(options: {
  certDir?: string | undefined;
  freshCertificates?: boolean | undefined;
  domain: string;
}): Promise<CertificateDirectory> {
  if (options.certDir !== undefined) {
    if (options.freshCertificates !== true) await seedFromCache(options.certDir, options.domain);
    return { directory: options.certDir, temporary: false };
  }
  const cache = options.freshCertificates === true ? undefined : userCertificateCache();
  return cache === undefined
    ? { directory: mkdtempSync(join(tmpdir(), 'reference-certs-')), temporary: true }
    : { directory: cache, temporary: false };
}
