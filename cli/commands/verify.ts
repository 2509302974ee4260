// `tenant-auth-conformance verify DIR [--public-key FILE]`: checks a run's bundle
// (conformance/attestation/verify-bundle.ts) and prints what it certifies. Exit 0: every file,
// the statement and the signature hold; 1: something differs, each difference named; 2: DIR is
// not a bundle, or the key file cannot be used.
import type { KeyObject } from 'node:crypto';
import type { ConformanceReport } from '../../schemas/generated/conformance-report.ts';
import { KeyFileError, loadPublicKey } from '../../conformance/attestation/signing-key.ts';
import { badgeMarkdown } from '../../conformance/attestation/badge.ts';
import {
  BundleInputError,
  verifyBundle,
  type Verification,
} from '../../conformance/attestation/verify-bundle.ts';
import { commandArguments } from '../arguments.ts';
import { EXIT } from '../exit-codes.ts';

const HELP = `Usage: tenant-auth-conformance verify DIR [--public-key FILE]

Checks the bundle a run wrote (REPORTS/bundle, with run --bundle, --sign-key or --profile strict)
without rerunning anything: every file against SHA256SUMS, no file added or missing, the in-toto
statement's subjects against the files and its predicate against conformance.json, and the
signature (statement.dsse.json). Then prints the verdict, the target, the certificates of its
hosts, the profile, the time and the fingerprint of the key that signed.

Options:
  --public-key FILE  the signer's Ed25519 public key (PEM), as they published it: the signature
                     must be theirs. Without it, the key in the bundle (signer.pub.pem) is used,
                     which proves the files were not changed after signing, not who signed —
                     compare the fingerprint printed with the one the signer publishes.
  --help             print this help

Exit codes:
  0  the bundle holds: nothing changed, added or missing, the signature (if any) verifies
  1  it does not: each file that differs is named (a changed report, a statement that does not
     match the files, a signature by another key, ...)
  2  usage error: DIR is not a bundle, or the key file cannot be read or is not an Ed25519 key`;

export function main(argv: string[]): number {
  const parsed = commandArguments(
    argv,
    { 'public-key': { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    HELP,
  );
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  if (positionals.length !== 1) {
    console.error(`Give one bundle directory.\n\n${HELP}`);
    return EXIT.usage;
  }
  const directory = positionals[0] ?? '';
  let verification: Verification;
  try {
    const key: KeyObject | undefined =
      values['public-key'] === undefined ? undefined : loadPublicKey(values['public-key']);
    verification = verifyBundle(directory, key);
  } catch (error) {
    if (!(error instanceof KeyFileError) && !(error instanceof BundleInputError)) throw error;
    console.error(error.message);
    return EXIT.usage;
  }
  if (verification.problems.length > 0) {
    console.error(
      [
        `NOT VERIFIED: ${directory} differs from what was attested:`,
        ...verification.problems.map((problem) => `  - ${problem}`),
      ].join('\n'),
    );
    return EXIT.notConformant;
  }
  console.log(describe(directory, verification));
  return EXIT.ok;
}

function describe(directory: string, verification: Verification): string {
  const report = verification.report as ConformanceReport;
  const signature = verification.signature;
  const signed =
    signature.state === 'valid'
      ? signature.keyFrom === 'given'
        ? `valid, by the given key ${signature.fingerprint}`
        : `valid, by the key in the bundle ${signature.fingerprint} — compare it with the signer's published fingerprint, or pass --public-key`
      : 'none: the bundle is unsigned, so anyone could have written it; its files are only consistent with each other';
  const kit = `${report.suite.name} ${report.suite.version}${report.suite.commit ? ` (commit ${report.suite.commit}${report.suite.sourceModified ? ', with local changes' : ''})` : ''}`;
  return [
    `VERIFIED: ${directory} — ${verification.filesChecked} files, each matching SHA256SUMS and the statement.`,
    `Verdict:      ${report.verdict}${report.shard ? ` (shard ${report.shard} only)` : ''}`,
    `Target:       ${report.target.name} — ${report.target.baseUrl}`,
    'Certificates:',
    ...(report.tls?.length
      ? report.tls.map(
          (tls) =>
            `  ${tls.field} ${tls.host}: SHA-256 ${tls.fingerprint256}\n    subject ${tls.subject}; issuer ${tls.issuer}; valid ${tls.validFrom} to ${tls.validTo}; ALPN ${tls.alpn.agreed ?? 'none agreed'}`,
        )
      : ['  none recorded (the report predates certificate capture, or the run stopped first)']),
    `Profile:      ${report.profile}`,
    `Time:         ${report.startedAt} (${(report.durationMs / 1000).toFixed(1)} s)`,
    `Kit:          ${kit}; rule catalog sha256 ${report.catalog?.sha256 ?? 'not recorded'}`,
    `Signature:    ${signed}`,
    `Badge:        ${badgeMarkdown(report)}`,
  ].join('\n');
}
