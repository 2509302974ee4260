// The CAs the suite trusts: the system's plus the target's CA file, never instead of them. For
// NODE_EXTRA_CA_CERTS (Playwright's requests) and for the suite's own TLS connections.
//
// The CA file for NODE_EXTRA_CA_CERTS. Node takes one file, so a target's CA and one the user
// already trusts are joined into a bundle rather than one replacing the other.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createSecureContext, rootCertificates, type SecureContext } from 'node:tls';
import { join } from 'node:path';
import { type Environment } from '../env.ts';

/**
 * NODE_EXTRA_CA_CERTS is the trust Node reads at start-up, the process's own: not a run setting.
 * A bundle is written in `directory`, the run's own (removed when the run ends), not in a
 * temporary directory of its own that nothing would remove.
 */
export function caBundleFor(
  targetCaFile: string | undefined,
  directory: string,
  env: Environment,
): string | undefined {
  const existing = env.NODE_EXTRA_CA_CERTS;
  if (targetCaFile === undefined) return existing;
  if (!existing || existing === targetCaFile || !existsSync(existing)) return targetCaFile;
  // The target's CA may not exist yet (the embedded server creates it on start), but a bundle
  // needs its content now: only a user CA that differs is joined, and only when the file exists.
  if (!existsSync(targetCaFile)) return targetCaFile;
  const mine = readFileSync(existing, 'utf8');
  const theirs = readFileSync(targetCaFile, 'utf8');
  // Every process that loads the config asks again: the runner, then each worker, which inherits
  // the runner's bundle as its NODE_EXTRA_CA_CERTS. A bundle that holds the target's CA already is
  // the answer, not a part of a new one.
  if (mine.includes(theirs.trim())) return existing;
  mkdirSync(directory, { recursive: true });
  const bundle = join(directory, 'ca-bundle.pem');
  writeFileSync(bundle, `${mine.trim()}\n${theirs}`);
  return bundle;
}

/** The rules' own CA list: the system's, plus the target's CA file when it declares one. */
export function trustedCas(caFile: string | undefined): string[] | undefined {
  return caFile === undefined ? undefined : [...rootCertificates, readFileSync(caFile, 'utf8')];
}

/**
 * The TLS context that trusts exactly `ca`, made once per process for each list (by content):
 * making one parses every CA of the list again, the system's included — tens of milliseconds,
 * which the preflight's handshakes and each client would otherwise pay one by one. A context is
 * only read once made, so sharing it changes nothing a connection checks.
 */
export function secureContextFor(ca: readonly string[]): SecureContext {
  const key = ca.join('\n');
  let context = contexts.get(key);
  if (context === undefined) {
    context = createSecureContext({ ca: [...ca] });
    contexts.set(key, context);
  }
  return context;
}

const contexts = new Map<string, SecureContext>();
