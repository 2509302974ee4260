// Checks a bundle without trusting it, in two questions kept apart (docs/decisions/0024):
// - integrity and consistency: SHA256SUMS first — a file it does not list is refused before it is
//   read, a listed one is hashed as a stream within a size bound — then the statement against its
//   JSON Schema and the files (unique subjects, the same digests), its predicate against
//   conformance.json, the verdict recomputed from the report's rules by the code that made it,
//   the badge re-rendered from the statement, a merged run's shards against each other, and the
//   DSSE envelope (canonical base64, the statement's exact bytes, a signature that verifies);
// - trust: whether a key the user vouched for (--public-key, --trusted-keys) signed it. The key in
//   the bundle proves only that nothing changed after signing: anyone can re-sign a forgery.
// Reading the files is verify-files.ts's, the report's consistency verify-report.ts's, the
// signature verify-signature.ts's; what is left here is the statement, and putting them together.
import type { KeyObject } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { ConformanceReport } from '../../schemas/generated/conformance-report.ts';
import { describeSchemaErrors, validatorFor } from '../../schemas/validators.ts';
import { REPORT_FILES } from '../report/write-reports.ts';
import { parsedOnce } from './json-keys.ts';
import { renderingDifferences } from './renderings.ts';
import { ATTESTATION_FILES, BADGE_FILE, SUBJECT_FILES } from './bundle-files.ts';
import { renderBadge } from './badge.ts';
import {
  PREDICATE_TYPE,
  STATEMENT_SCHEMA,
  predicateOf,
  type Statement,
  type VerdictPredicate,
} from './statement.ts';
import { BundleInputError } from './bundle-input-error.ts';
import { bundleEntries, listedFileHashes, readBounded } from './verify-files.ts';
import { checkReport, readReport } from './verify-report.ts';
import { checkSignature, type SignatureCheck } from './verify-signature.ts';

export { BundleInputError };
export type { SignatureCheck };

export interface VerifyOptions {
  /** The keys the user vouches for (--public-key, --trusted-keys). */
  trustedKeys?: readonly KeyObject[];
  /** The largest file of the bundle that is hashed, in bytes. */
  maxFileBytes?: number;
}

export interface Verification {
  /** What differs or disagrees, each naming its file; empty when the bundle holds. */
  problems: string[];
  filesChecked: number;
  /** conformance.json, when it could be read as a report. */
  report?: ConformanceReport;
  signature: SignatureCheck;
}

/** A HAR of a long run is the largest file; a gigabyte is far past any real one. */
export const MAX_FILE_BYTES = 1024 * 1024 * 1024;
/** The files verify parses (JSON, PEM, SVG) are read whole, so within a smaller bound. */
const MAX_PARSED_BYTES = 64 * 1024 * 1024;

export async function verifyBundle(directory: string, options: VerifyOptions = {}): Promise<Verification> {
  const maxFileBytes = options.maxFileBytes ?? MAX_FILE_BYTES;
  const names = bundleEntries(directory);
  const problems: string[] = [];
  const none = (): Verification => ({ problems, filesChecked: 0, signature: { state: 'invalid' } });

  const hashes = await listedFileHashes(directory, names, maxFileBytes, problems);
  if (hashes === undefined) return none();
  const present: ReadonlySet<string> = new Set(hashes.keys());
  const read = (name: string): Buffer | undefined =>
    present.has(name) ? readBounded(directory, name, names, problems, MAX_PARSED_BYTES) : undefined;

  const statementBytes = read(ATTESTATION_FILES.statement);
  if (statementBytes === undefined && !present.has(ATTESTATION_FILES.statement))
    problems.push(`${ATTESTATION_FILES.statement} is missing.`);
  const statement = statementBytes && parseStatement(statementBytes, problems);
  if (statement) checkSubjects(statement, hashes, problems);

  const report = readReport(read(REPORT_FILES.json), problems);
  if (report) checkReport(report, problems);
  if (report) problems.push(...renderingDifferences(report, read));
  if (statement && report) checkPredicate(statement.predicate, report, problems);
  if (statement) {
    const badge = read(BADGE_FILE);
    if (badge && !badge.equals(Buffer.from(renderBadge(statement.predicate))))
      problems.push(
        `${BADGE_FILE} is not the badge of ${ATTESTATION_FILES.statement}: it should read "${badgeText(renderBadge(statement.predicate))}", it reads "${badgeText(badge.toString('utf8'))}".`,
      );
  }

  const signature = checkSignature(read, present, statementBytes, options.trustedKeys ?? [], problems);
  return { problems, filesChecked: present.size + 1, ...(report ? { report } : {}), signature };
}

function parseStatement(bytes: Buffer, problems: string[]): Statement | undefined {
  const parsed = parsedOnce(ATTESTATION_FILES.statement, bytes, problems);
  if (!parsed) return undefined;
  const value = parsed.value;
  const type = (value as { predicateType?: unknown } | null)?.predicateType;
  if (typeof type === 'string' && type !== PREDICATE_TYPE) {
    problems.push(
      `${ATTESTATION_FILES.statement} has predicate type ${type}; this verify reads ${PREDICATE_TYPE} (a bundle of an earlier kit is checked with that kit).`,
    );
    return undefined;
  }
  const validate = validatorFor<Statement>(STATEMENT_SCHEMA);
  if (!validate(value)) {
    problems.push(
      `${ATTESTATION_FILES.statement} does not match schemas/${STATEMENT_SCHEMA}: ${describeSchemaErrors(validate.errors).join('; ')}`,
    );
    return undefined;
  }
  return value;
}

/** The subjects are exactly the reports and the badge, each once, with the files' digests. */
function checkSubjects(statement: Statement, hashes: ReadonlyMap<string, string>, problems: string[]): void {
  const seen = new Set<string>();
  for (const subject of statement.subject) {
    if (seen.has(subject.name)) {
      problems.push(
        `${ATTESTATION_FILES.statement} names ${subject.name} twice: each subject must be named once.`,
      );
      continue;
    }
    seen.add(subject.name);
    if (!SUBJECT_FILES.includes(subject.name)) {
      problems.push(
        `${ATTESTATION_FILES.statement} names ${subject.name}, which is not a report or the badge.`,
      );
      continue;
    }
    const found = hashes.get(subject.name);
    if (found === undefined)
      problems.push(`${ATTESTATION_FILES.statement} names ${subject.name}, which is not in the bundle.`);
    else if (found !== subject.digest.sha256)
      problems.push(
        `${ATTESTATION_FILES.statement} does not match ${subject.name}: it gives SHA-256 ${subject.digest.sha256}, the file's is ${found}.`,
      );
  }
  for (const name of SUBJECT_FILES)
    if (!seen.has(name)) problems.push(`${ATTESTATION_FILES.statement} does not name ${name}.`);
}

function checkPredicate(predicate: VerdictPredicate, report: ConformanceReport, problems: string[]): void {
  const expected = predicateOf(report);
  const differing = [...new Set([...Object.keys(expected), ...Object.keys(predicate)])].filter(
    (key) =>
      !isDeepStrictEqual(
        (expected as Record<string, unknown>)[key],
        (predicate as Record<string, unknown>)[key],
      ),
  );
  if (differing.length > 0)
    problems.push(
      `${ATTESTATION_FILES.statement}'s predicate does not match ${REPORT_FILES.json} in: ${differing.join(', ')}.`,
    );
}

/** The words a badge shows (its title), for a message. */
function badgeText(svg: string): string {
  return (
    /<title>([^<]*)<\/title>/
      .exec(svg)?.[1]
      ?.replace(/&#(\d+);/g, (_m, code: string) => String.fromCharCode(Number(code))) ?? 'no title'
  );
}
