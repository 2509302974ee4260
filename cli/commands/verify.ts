// `tenant-auth-conformance verify DIR [--public-key FILE] [--trusted-keys FILE]
// [--expect-base-url URL] [--check-live]`: checks a run's bundle
// (conformance/attestation/verify-bundle.ts) and prints what it certifies and what a customer
// should weigh. Integrity and trust are apart: exit 0 only for an intact, consistent bundle signed
// by a key the user gave; an intact bundle that is unsigned or signed by anyone else exits 4.
import type { KeyObject } from 'node:crypto';
import type { ConformanceReport } from '../../schemas/generated/conformance-report.ts';
import {
  KeyFileError,
  keyFingerprint,
  loadPublicKey,
  loadTrustedKeys,
} from '../../conformance/attestation/signing-key.ts';
import { badgeMarkdown } from '../../conformance/attestation/badge.ts';
import {
  BundleInputError,
  verifyBundle,
  type Verification,
} from '../../conformance/attestation/verify-bundle.ts';
import { claimWarnings } from '../../conformance/attestation/claim-warnings.ts';
import { checkLive } from '../../conformance/attestation/live-check.ts';
import { scopeLine, verdictWithScope } from '../../conformance/report/scope.ts';
import { protocolsLine } from '../../conformance/report/outcomes-by-protocol.ts';
import { commandArguments } from '../arguments.ts';
import { EXIT } from '../exit-codes.ts';

/** verify's own exit codes (its --help, the README). */
export const VERIFY_EXIT = {
  /** Intact, consistent, and signed by a key the user gave. */
  verified: 0,
  /** Something differs: a file, the statement, the report against itself, the signature, or what was expected. */
  differs: 1,
  usage: EXIT.usage,
  /** Intact and consistent, but unsigned or signed by a key nobody vouched for. */
  untrusted: 4,
} as const;

const HELP = `Usage: tenant-auth-conformance verify DIR [--public-key FILE]... [--trusted-keys FILE]
                                      [--expect-base-url URL] [--check-live [--via-host-map]]

Checks the bundle a run or a merge wrote (REPORTS/bundle, with --bundle, --sign-key or --profile
strict) without rerunning anything, then prints what it certifies:
  integrity    every file against SHA256SUMS (a file it does not list is refused unread; listed
               ones are hashed as streams, up to 1 GiB each), the in-toto statement against
               schemas/verdict-statement.schema.json and the files (each subject once), its
               predicate against conformance.json, the DSSE envelope (canonical base64, the
               statement's exact bytes, a signature that verifies)
  consistency  the verdict and counts recomputed from the report's rules, its scope (partial or
               not) recomputed from its protocols and hosts, badge.svg re-rendered from the
               statement, and a merged run's shards on one target, kit and catalog
  trust        the signature checked against the keys you give: the key inside the bundle
               (signer.pub.pem) proves only that nothing changed after signing — anyone can
               re-sign a forgery with their own key
Then the verdict with its scope (e.g. "CONFORMANT · HTTP/1.1 only"), the target (mode, base URL,
host map, CA file), each host's certificate fingerprint, issuer and protocols, and warnings when
hosts were mapped to loopback or private addresses or trust came from a private CA.

Options:
  --public-key FILE    a signer's Ed25519 public key (PEM), as they published it; repeatable
  --trusted-keys FILE  a file of the Ed25519 public keys you trust, PEM blocks one after another
  --expect-base-url URL
                       the base URL you use: the bundle must be a run against it
  --check-live         reach each recorded host now (your own DNS) and compare its certificate
                       fingerprint and its HTTP/2 offer (ALPN) with the bundle's
  --via-host-map       with --check-live: connect where the run's host map sent each name (a
                       staging or loopback set-up you reproduce), not where your DNS does
  --help               print this help

Exit codes:
  0  VERIFIED: intact, consistent, and signed by a key you gave (and, if asked, the expected base
     URL and the live certificates match)
  1  NOT VERIFIED: something differs — each difference named (a changed or added file, a
     statement or badge that disagrees with the report, a signature that does not verify, a base
     URL or live certificate other than expected)
  2  usage error: DIR is not a bundle, or a key file cannot be read or is not an Ed25519 key
  4  NOT TRUSTED: intact and consistent, but unsigned, or signed by a key you did not give — the
     first line is NOT TRUSTED alone, the next says which; pass the signer's key with
     --public-key to decide`;

export async function main(argv: string[]): Promise<number> {
  const parsed = commandArguments(
    argv,
    {
      'public-key': { type: 'string', multiple: true },
      'trusted-keys': { type: 'string', multiple: true },
      'expect-base-url': { type: 'string' },
      'check-live': { type: 'boolean' },
      'via-host-map': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    HELP,
  );
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  if (positionals.length !== 1) {
    console.error(`Give one bundle directory.\n\n${HELP}`);
    return VERIFY_EXIT.usage;
  }
  const expected = values['expect-base-url'];
  if (expected !== undefined && !URL.canParse(expected)) {
    console.error(
      `--expect-base-url: "${expected}" is not a URL; give the base URL you use, e.g. https://api.example.com/v1.`,
    );
    return VERIFY_EXIT.usage;
  }
  if (values['via-host-map'] === true && values['check-live'] !== true) {
    console.error('--via-host-map changes where --check-live connects: give both.');
    return VERIFY_EXIT.usage;
  }
  const directory = positionals[0] ?? '';
  let verification: Verification;
  let trustedKeys: KeyObject[];
  try {
    trustedKeys = [
      ...(values['public-key'] ?? []).map((file) => loadPublicKey(file)),
      ...(values['trusted-keys'] ?? []).flatMap((file) => loadTrustedKeys(file)),
    ];
    verification = await verifyBundle(directory, { trustedKeys });
  } catch (error) {
    if (!(error instanceof KeyFileError) && !(error instanceof BundleInputError)) throw error;
    console.error(error.message);
    return VERIFY_EXIT.usage;
  }
  const report = verification.report;
  const problems = [...verification.problems];
  if (report && expected !== undefined) problems.push(...baseUrlDifferences(report, expected));
  const live =
    report && values['check-live'] === true
      ? await checkLive(report, undefined, { viaHostMap: values['via-host-map'] === true })
      : undefined;
  if (live) problems.push(...live.differences.map((difference) => `live: ${difference}`));
  if (problems.length > 0 || !report) {
    console.error(
      [
        `NOT VERIFIED: ${directory} differs from what was attested or expected:`,
        ...problems.map((problem) => `  - ${problem}`),
      ].join('\n'),
    );
    return VERIFY_EXIT.differs;
  }
  const signature = verification.signature;
  const claim = verdictWithScope(report);
  // Untrusted, the trust word stands alone on the first line: a script that looks for the verdict
  // word there must not read an unvouched claim as a pass.
  const headline =
    signature.state === 'trusted'
      ? `VERIFIED: ${claim} — signed by ${signature.fingerprint}, a key you gave; ${verification.filesChecked} files intact and consistent.`
      : [
          'NOT TRUSTED',
          signature.state === 'untrusted'
            ? `  intact, but signed by ${signature.fingerprint}, ${trustedKeys.length > 0 ? `not by a key you gave (${trustedKeys.map(keyFingerprint).join(', ')})` : 'a key you did not give'}: anyone can sign a bundle. Pass the signer's published key with --public-key.`
            : '  intact, but not signed: anyone could have written it.',
          `  What it claims, vouched for by no key you gave: ${claim}`,
        ].join('\n');
  console.log([headline, ...describe(report, verification, live !== undefined)].join('\n'));
  return signature.state === 'trusted' ? VERIFY_EXIT.verified : VERIFY_EXIT.untrusted;
}

function baseUrlDifferences(report: ConformanceReport, expected: string): string[] {
  const normal = (url: string): string => (URL.canParse(url) ? new URL(url).href : url);
  const targets = [report.target, ...(report.shards ?? []).map((shard) => shard.target)];
  return [...new Set(targets.map((target) => target.baseUrl))]
    .filter((url) => normal(url) !== normal(expected))
    .map((url) => `the run checked ${url}, not the expected base URL ${expected}.`);
}

function describe(report: ConformanceReport, verification: Verification, checkedLive: boolean): string[] {
  const kit = `${report.suite.name} ${report.suite.version}${report.suite.commit ? ` (commit ${report.suite.commit}${report.suite.sourceModified ? ', with local changes' : ''})` : ''}`;
  // A merge's certificates are those its shards' own results show (never their records').
  const certificates = report.tls ?? [];
  const hosts = Object.entries(report.target.hosts ?? {});
  const warnings = claimWarnings(report);
  const signature = verification.signature;
  return [
    `Verdict:      ${report.verdict}${report.shard ? ` (shard ${report.shard} only)` : ''}${report.protocols ? ` (${protocolsLine(report)})` : ''}`,
    `Scope:        ${scopeLine(report) ?? 'not recorded'}`,
    `Target:       ${report.target.name} (${report.target.mode === 'embedded' ? 'the embedded reference server' : 'a target file'})`,
    `Base URL:     ${report.target.baseUrl}`,
    `Plain HTTP:   ${report.target.plainHttpBaseUrl ? `${report.target.plainHttpBaseUrl} (where the plain-HTTP rules probed)` : 'not recorded (a report of an earlier kit)'}`,
    `Host map:     ${hosts.length > 0 ? hosts.map(([pattern, address]) => `${pattern} → ${address}`).join(', ') : 'none (names resolved by DNS)'}`,
    `CA file:      ${report.target.caFile ?? "none (the system's CAs)"}`,
    ...(report.target.trust ?? []).map((source) => `Trust:        ${source}`),
    ...(report.scope?.vendorsWord ?? []).map((line) => `Vendor's word: ${line}`),
    'Certificates:',
    ...(certificates.length > 0
      ? certificates.map(
          (tls) =>
            `  ${tls.field} ${tls.host}: SHA-256 ${tls.fingerprint256}\n    issuer ${tls.issuer}; subject ${tls.subject}; valid ${tls.validFrom} to ${tls.validTo}; offers ${tls.protocols?.join(', ') ?? 'not recorded'}`,
        )
      : ['  none recorded (a plain-HTTP target, or a report from before certificate capture)']),
    ...(report.shards
      ? [
          `Shards:       ${report.shards.map((shard) => `${shard.shard} started ${shard.startedAt}`).join('; ')}`,
        ]
      : []),
    `Profile:      ${report.profile}`,
    `Time:         ${report.startedAt} (${(report.durationMs / 1000).toFixed(1)} s)`,
    `Kit:          ${kit}; rule catalog sha256 ${report.catalog?.sha256 ?? 'not recorded'}`,
    `Signature:    ${
      signature.state === 'trusted'
        ? `by ${signature.fingerprint}, a key you gave`
        : signature.state === 'untrusted'
          ? `by ${signature.fingerprint} (signer.pub.pem), which you did not give: compare it with the signer's published fingerprint`
          : 'none'
    }`,
    `Live check:   ${checkedLive ? "every recorded host presents the bundle's certificate and protocols now" : 'not done (--check-live compares the hosts now)'}`,
    `Badge:        ${badgeMarkdown(report)}`,
    'What a signature proves: that the key holder published these bytes, unchanged since; not that the kit produced them, nor that the target was the deployment you use. Run the suite yourself, or check the hosts now (--check-live).',
    ...(warnings.length > 0 ? ['Warnings:', ...warnings.map((warning) => `  ! ${warning}`)] : []),
  ];
}
