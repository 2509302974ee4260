// The files of a bundle, by role. The reports and the badge are the statement's subjects; the
// others attest them. Nothing else may be in the directory (verify-bundle.ts).
import { REPORT_FILES } from '../report/write-reports.ts';

export const BUNDLE_DIRECTORY = 'bundle';

export const ATTESTATION_FILES = {
  /** `sha256sum -c SHA256SUMS` checks every other file of the bundle. */
  manifest: 'SHA256SUMS',
  statement: 'statement.json',
  /** The statement signed, when the run had --sign-key. */
  envelope: 'statement.dsse.json',
  /** The public half of the signing key, so that anyone can check the signature and see whose key it is. */
  signerKey: 'signer.pub.pem',
} as const;

export const BADGE_FILE = 'badge.svg';

/** What the statement attests, in this order. */
export const SUBJECT_FILES: readonly string[] = [...Object.values(REPORT_FILES), BADGE_FILE];
