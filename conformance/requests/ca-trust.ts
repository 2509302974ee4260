// The CAs the suite trusts: the system's plus the target's CA file, never instead of them. For
// NODE_EXTRA_CA_CERTS (Playwright's requests) and for the suite's own TLS connections.
//
// The CA file for NODE_EXTRA_CA_CERTS. Node takes one file, so a target's CA and one the user
// already trusts are joined into a bundle rather than one replacing the other.
import { existsSync, readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function caBundleFor(
  targetCaFile: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  const existing = env.NODE_EXTRA_CA_CERTS;
  if (targetCaFile === undefined) return existing;
  if (!existing || existing === targetCaFile || !existsSync(existing)) return targetCaFile;
  // The target's CA may not exist yet (the embedded server creates it on start), but a bundle
  // needs its content now: only a user CA that differs is joined, and only when the file exists.
  if (!existsSync(targetCaFile)) return targetCaFile;
  const bundle = join(mkdtempSync(join(tmpdir(), 'conformance-ca-')), 'ca-bundle.pem');
  writeFileSync(bundle, `${readFileSync(existing, 'utf8').trim()}\n${readFileSync(targetCaFile, 'utf8')}`);
  return bundle;
}

/** The rules' own CA list: the system's, plus the target's CA file when it declares one. */
export function trustedCas(caFile: string | undefined): string[] | undefined {
  return caFile === undefined ? undefined : [...rootCertificates, readFileSync(caFile, 'utf8')];
}
