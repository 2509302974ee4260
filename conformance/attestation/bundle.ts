// bundle/: the run's reports copied beside a badge, their SHA-256 digests (SHA256SUMS), the
// in-toto statement that names them and, with a signing key, that statement signed (DSSE) with
// the public key beside it. Written from scratch each run: a file left from an earlier run would
// be an unexplained addition.
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KeyObject } from 'node:crypto';
import type { ConformanceReport } from '../../schemas/generated/conformance-report.ts';
import { REPORT_FILES } from '../report/write-reports.ts';
import { ATTESTATION_FILES, BADGE_FILE, BUNDLE_DIRECTORY } from './bundle-files.ts';
import { renderBadge } from './badge.ts';
import { signEnvelope } from './dsse.ts';
import { renderManifest, sha256Hex } from './manifest.ts';
import { keyFingerprint, publicKeyPem } from './signing-key.ts';
import { buildStatement, statementBytes } from './statement.ts';

export interface WrittenBundle {
  directory: string;
  /** The fingerprint of the signing key, when signed. */
  signedBy?: string;
}

/** Writes `reportDirectory`/bundle from the reports already written there. */
export function writeBundle(
  report: ConformanceReport,
  reportDirectory: string,
  signingKey?: KeyObject,
): WrittenBundle {
  const directory = join(reportDirectory, BUNDLE_DIRECTORY);
  rmSync(directory, { recursive: true, force: true });
  mkdirSync(directory, { recursive: true });
  const digests = new Map<string, string>();
  const put = (name: string, content: Buffer | string): void => {
    writeFileSync(join(directory, name), content);
    digests.set(name, sha256Hex(content));
  };
  for (const name of Object.values(REPORT_FILES)) {
    copyFileSync(join(reportDirectory, name), join(directory, name));
    digests.set(name, sha256Hex(readFileSync(join(directory, name))));
  }
  put(BADGE_FILE, renderBadge(report));
  const subjects = [...digests].map(([name, sha256]) => ({ name, digest: { sha256 } }));
  const statement = statementBytes(buildStatement(report, subjects));
  put(ATTESTATION_FILES.statement, statement);
  if (signingKey) {
    // Only the public half is written; the private key stays in its file.
    put(ATTESTATION_FILES.signerKey, publicKeyPem(signingKey));
    put(ATTESTATION_FILES.envelope, `${JSON.stringify(signEnvelope(statement, signingKey), null, 2)}\n`);
  }
  writeFileSync(join(directory, ATTESTATION_FILES.manifest), renderManifest(digests));
  return { directory, ...(signingKey ? { signedBy: keyFingerprint(signingKey) } : {}) };
}
