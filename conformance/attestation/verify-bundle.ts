// Checks a bundle without trusting it, in two questions kept apart (docs/decisions/0024):
// - integrity and consistency: SHA256SUMS first — a file it does not list is refused before it is
//   read, a listed one is hashed as a stream within a size bound — then the statement against its
//   JSON Schema and the files (unique subjects, the same digests), its predicate against
//   conformance.json, the verdict recomputed from the report's rules by the code that made it,
//   the badge re-rendered from the statement, a merged run's shards against each other, and the
//   DSSE envelope (canonical base64, the statement's exact bytes, a signature that verifies);
// - trust: whether a key the user vouched for (--public-key, --trusted-keys) signed it. The key in
//   the bundle proves only that nothing changed after signing: anyone can re-sign a forgery.
import type { KeyObject } from 'node:crypto';
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, lstatSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { ConformanceReport } from '../../schemas/generated/conformance-report.ts';
import { describeSchemaErrors, validatorFor } from '../../schemas/validators.ts';
import { REPORT_FILES } from '../report/write-reports.ts';
import { failsRun, NOT_RUN_MESSAGE, overallVerdict, runVerdict } from '../report/verdict.ts';
import { verdictOverProtocol } from '../report/build-report.ts';
import { catalogDigestOf } from '../report/provenance.ts';
import { duplicateKeys, TooDeepError } from './json-keys.ts';
import { renderingDifferences } from './renderings.ts';
import { scopeInputsOf, scopeOf } from '../report/scope.ts';
import { mergedSettingsDifferences, shardDisagreements } from '../report/shard-records.ts';
import { ATTESTATION_FILES, BADGE_FILE, BUNDLE_DIRECTORY, SUBJECT_FILES } from './bundle-files.ts';
import { renderBadge } from './badge.ts';
import { IN_TOTO_PAYLOAD_TYPE, isEnvelope, verifiedSignature, type DsseEnvelope } from './dsse.ts';
import { parseManifest } from './manifest.ts';
import { KeyFileError, keyFingerprint, publicKeyFromPem } from './signing-key.ts';
import {
  PREDICATE_TYPE,
  STATEMENT_SCHEMA,
  predicateOf,
  type Statement,
  type VerdictPredicate,
} from './statement.ts';
import { BundleInputError } from './bundle-input-error.ts';

export { BundleInputError };

/** Every name a bundle may hold: the statement's subjects and the files that attest them. */
const BUNDLE_FILES: ReadonlySet<string> = new Set([...SUBJECT_FILES, ...Object.values(ATTESTATION_FILES)]);

export type SignatureCheck =
  | { state: 'unsigned' }
  /** Verifies with a key the user gave. */
  | { state: 'trusted'; fingerprint: string }
  /** Verifies with the key the bundle carries, which nobody vouched for. */
  | { state: 'untrusted'; fingerprint: string }
  | { state: 'invalid' };

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

  // SHA256SUMS first: it says which files may be read at all.
  const manifestBytes = readBounded(directory, ATTESTATION_FILES.manifest, names, problems, 1024 * 1024);
  if (manifestBytes === undefined) {
    if (!names.includes(ATTESTATION_FILES.manifest))
      problems.push(`${ATTESTATION_FILES.manifest} is missing: no file of the bundle can be checked.`);
    return none();
  }
  const { digests, badLines } = parseManifest(manifestBytes.toString('utf8'));
  for (const line of badLines)
    problems.push(
      `${ATTESTATION_FILES.manifest} line ${line} is not "<sha256>  <file name>" (or names a file twice).`,
    );
  // A bundle is exactly the statement's subjects and the files that attest them: any other name,
  // listed in SHA256SUMS or not, is refused by its name alone — never opened, whatever its size
  // or kind (SHA256SUMS is not signed: anyone can append a line to it).
  for (const name of new Set([...names, ...digests.keys()]))
    if (!BUNDLE_FILES.has(name) && digests.has(name))
      problems.push(
        `${name} is not a file of a bundle (only ${[...BUNDLE_FILES].join(', ')}): refused unread, though ${ATTESTATION_FILES.manifest} lists it.`,
      );
  // An unlisted entry is refused by its name alone: never opened, whatever its size or kind.
  for (const name of names)
    if (name !== ATTESTATION_FILES.manifest && !digests.has(name))
      problems.push(`${name} was added: it is not listed in ${ATTESTATION_FILES.manifest} (refused unread).`);
  // Each listed file's SHA-256 as it is now.
  const hashes = new Map<string, string>();
  for (const [name, digest] of digests) {
    if (!BUNDLE_FILES.has(name)) continue;
    if (!names.includes(name)) {
      problems.push(`${name} is missing (listed in ${ATTESTATION_FILES.manifest}).`);
      continue;
    }
    const found = await hashFile(directory, name, maxFileBytes, problems);
    if (found === undefined) continue;
    hashes.set(name, found);
    if (found !== digest)
      problems.push(
        `${name} was changed: its SHA-256 is ${found}, ${ATTESTATION_FILES.manifest} says ${digest}.`,
      );
  }
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

/** The bundle's entry names; a sub-directory is listed with a trailing slash. */
function bundleEntries(directory: string): string[] {
  let isDirectory: boolean;
  try {
    isDirectory = statSync(directory).isDirectory();
  } catch {
    throw new BundleInputError(
      `${directory} does not exist: give the bundle directory a run wrote (REPORTS/${BUNDLE_DIRECTORY}).`,
    );
  }
  if (!isDirectory)
    throw new BundleInputError(
      `${directory} is not a directory: give the bundle directory a run wrote (REPORTS/${BUNDLE_DIRECTORY}).`,
    );
  const entries = readdirSync(directory, { withFileTypes: true });
  const names = entries.map((entry) => entry.name);
  if (!names.includes(ATTESTATION_FILES.manifest) && !names.includes(ATTESTATION_FILES.statement)) {
    const inside = join(directory, BUNDLE_DIRECTORY);
    throw new BundleInputError(
      existsSync(inside)
        ? `${directory} holds reports, not a bundle: give ${inside}.`
        : `${directory} is not a bundle (no ${ATTESTATION_FILES.manifest}, no ${ATTESTATION_FILES.statement}): run with --bundle (or --profile strict) and give REPORTS/${BUNDLE_DIRECTORY}.`,
    );
  }
  return entries.map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name));
}

/** A regular file within `limit` bytes, or the problem that says why it is not read. */
function fileWithin(directory: string, name: string, limit: number, problems: string[]): boolean {
  const path = join(directory, name);
  const stat = lstatSync(path, { throwIfNoEntry: false });
  if (!stat?.isFile()) {
    problems.push(`${name} is not a regular file (refused unread).`);
    return false;
  }
  if (stat.size > limit) {
    problems.push(
      `${name} is ${stat.size} bytes, more than the ${limit} a bundle's file may have (refused unread).`,
    );
    return false;
  }
  return true;
}

async function hashFile(
  directory: string,
  name: string,
  limit: number,
  problems: string[],
): Promise<string | undefined> {
  if (name.endsWith('/') || !fileWithin(directory, name, limit, problems)) return undefined;
  const hash = createHash('sha256');
  try {
    for await (const chunk of createReadStream(join(directory, name))) hash.update(chunk as Buffer);
  } catch (error) {
    problems.push(`${name} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}).`);
    return undefined;
  }
  return hash.digest('hex');
}

function readBounded(
  directory: string,
  name: string,
  names: readonly string[],
  problems: string[],
  limit: number,
): Buffer | undefined {
  if (!names.includes(name) || !fileWithin(directory, name, limit, problems)) return undefined;
  try {
    return readFileSync(join(directory, name));
  } catch (error) {
    problems.push(`${name} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}).`);
    return undefined;
  }
}

function parseStatement(bytes: Buffer, problems: string[]): Statement | undefined {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    problems.push(`${ATTESTATION_FILES.statement} is not JSON.`);
    return undefined;
  }
  if (namesTwice(ATTESTATION_FILES.statement, bytes, problems)) return undefined;
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

function readReport(bytes: Buffer | undefined, problems: string[]): ConformanceReport | undefined {
  if (bytes === undefined) return undefined; // named missing or refused above
  let data: unknown;
  try {
    data = JSON.parse(bytes.toString('utf8'));
  } catch {
    problems.push(`${REPORT_FILES.json} is not JSON.`);
    return undefined;
  }
  if (namesTwice(REPORT_FILES.json, bytes, problems)) return undefined;
  const validate = validatorFor<ConformanceReport>('conformance-report.schema.json');
  if (!validate(data)) {
    problems.push(
      `${REPORT_FILES.json} is not a conformance report (schemas/conformance-report.schema.json): ${describeSchemaErrors(validate.errors).join('; ')}`,
    );
    return undefined;
  }
  return data;
}

/**
 * The report agrees with itself: its verdict is what its rules come to (by the code that made it),
 * its counts are its rules' counts, its scope is what its protocols and selection make it, and a
 * merged run's shards ran against one target with one kit and one catalog.
 */
function checkReport(report: ConformanceReport, problems: string[]): void {
  if (report.verdict !== 'SETUP ERROR') {
    const recomputed = runVerdict(report.rules, report.profile, report.scope);
    if (recomputed !== report.verdict)
      problems.push(
        `${REPORT_FILES.json} says ${report.verdict}, but its rules come to ${recomputed} (profile ${report.profile}).`,
      );
  }
  const counts = new Map<string, number>();
  for (const rule of report.rules) {
    const key = summaryKey(rule.verdict);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const summary = report.summary as unknown as Record<string, number>;
  for (const key of new Set([...Object.keys(summary), ...counts.keys()])) {
    const stated = summary[key] ?? 0;
    const counted = counts.get(key) ?? 0;
    if (stated !== counted)
      problems.push(`${REPORT_FILES.json}'s summary counts ${stated} ${key}, but its rules hold ${counted}.`);
  }
  if (report.scope) {
    const scope = report.scope;
    const recomputed = scopeOf(
      scopeInputsOf(scope, report.tls ?? [], report.shards ?? [], report.target.hosts ?? {}),
    );
    if (!isDeepStrictEqual(recomputed, scope))
      problems.push(
        `${REPORT_FILES.json}'s scope does not follow from its protocols and hosts: it should say ${JSON.stringify(recomputed.partial)} of what is partial, it says ${JSON.stringify(scope.partial)}.`,
      );
    if (report.catalog && scope.rulesInCatalog !== report.catalog.rules)
      problems.push(
        `${REPORT_FILES.json}'s scope counts ${scope.rulesInCatalog} rules in the catalog, its catalog ${report.catalog.rules}.`,
      );
  }
  problems.push(...protocolVerdictDifferences(report));
  problems.push(...warningsUnderProfile(report));
  problems.push(...baseUrlCertificateDifferences(report));
  problems.push(...settingsDifferences(report));
  problems.push(...catalogDifferences(report));
  problems.push(...selectionDifferences(report));
  for (const difference of mergedSettingsDifferences(report.scope?.settings, report.shards ?? []))
    problems.push(`${REPORT_FILES.json} is a merge whose settings are not its shards': ${difference}`);
  for (const disagreement of shardDisagreements(report.shards ?? []))
    problems.push(`${REPORT_FILES.json} merges shards that are not one run: ${disagreement}`);
}

/**
 * A JSON file that names a member twice in one object: which one a reader keeps is the reader's
 * choice, so the file says two things. Refused, naming the first such member.
 */
function namesTwice(name: string, bytes: Buffer, problems: string[]): boolean {
  let twice: string[];
  try {
    twice = duplicateKeys(bytes.toString('utf8'));
  } catch (error) {
    if (!(error instanceof TooDeepError)) throw error;
    problems.push(`${name} is ${error.message}: no bundle's file is (refused).`);
    return true;
  }
  if (twice.length === 0) return false;
  problems.push(
    `${name} names ${twice.join(', ')} twice in one object: a reader may keep either value (refused).`,
  );
  return true;
}

/**
 * Each protocol's verdict (`protocols`) recomputed from the rules' verdicts over it, by the code
 * that made it; and no rule's verdict milder than a failure or error over one protocol.
 */
function protocolVerdictDifferences(report: ConformanceReport): string[] {
  if (report.verdict === 'SETUP ERROR') return [];
  const problems: string[] = [];
  const byProtocol = report.rules.some((rule) => rule.protocols !== undefined);
  for (const entry of report.protocols ?? []) {
    if (entry.verdict === undefined) continue;
    const recomputed = byProtocol
      ? verdictOverProtocol(report.rules, entry.name, report.profile)
      : overallVerdict(report.rules, report.profile);
    if (recomputed !== entry.verdict)
      problems.push(
        `${REPORT_FILES.json} says ${entry.name} ${entry.verdict}, but its rules over ${entry.name} come to ${recomputed}.`,
      );
  }
  for (const rule of report.rules) {
    const over = Object.values(rule.protocols ?? {});
    const worst = over.includes('fail') ? 'fail' : over.includes('error') ? 'error' : undefined;
    if (worst !== undefined && rule.verdict !== 'fail' && !(worst === 'error' && rule.verdict === 'error'))
      problems.push(
        `${REPORT_FILES.json} says ${rule.id} ${rule.verdict}, but over one protocol it is ${worst}.`,
      );
  }
  return problems;
}

/**
 * A warning is a failure the rule's level let pass under the profile it ran under: a rule whose
 * level fails the run under the report's profile (MUST always, HTTP under strict) cannot be one,
 * overall or over one protocol. One that is was judged under a milder profile than the report
 * names (a default shard merged into a strict run).
 */
function warningsUnderProfile(report: ConformanceReport): string[] {
  return report.rules
    .filter((rule) => failsRun(rule.level, report.profile))
    .filter((rule) => [rule.verdict, ...Object.values(rule.protocols ?? {})].includes('warning'))
    .map(
      (rule) =>
        `${REPORT_FILES.json} says ${rule.id} warning, but a failure of a ${rule.level} rule fails the run under profile ${report.profile}: it was judged under a milder profile.`,
    );
}

/**
 * The certificate the report gives for its base URL was seen at the base URL's host and port (the
 * embedded reference's port, chosen when it starts, aside): another host's certificate says the
 * rules ran against another target than the one the report names.
 */
function baseUrlCertificateDifferences(report: ConformanceReport): string[] {
  const { baseUrl } = report.target;
  const free = baseUrl.includes('{free port}');
  // As the preflight writes a host (deployment/preflight.ts): URL's host, with :443 added when it
  // has no colon (an IPv6 address keeps its brackets, and no default port).
  const authority = (host: string): string => (host.includes(':') ? host : `${host}:443`);
  let expected: string;
  try {
    const url = new URL(baseUrl.replace('{free port}', '1'));
    expected = free ? url.hostname : authority(url.host);
  } catch {
    return [];
  }
  const seen = (host: string): string => (free ? host.replace(/:\d+$/, '') : host).toLowerCase();
  return (report.tls ?? [])
    .filter((entry) => entry.field === 'baseUrl' && seen(entry.host) !== expected.toLowerCase())
    .map(
      (entry) =>
        `${REPORT_FILES.json} names the base URL ${baseUrl}, but its base URL's certificate was seen at ${entry.host}: the rules ran against another target than the one it names.`,
    );
}

/**
 * The rules a report lists are the catalog it names: their ids, levels and statements hash to its
 * digest (a level lowered from MUST to ADVISORY, a failing rule left out, changes it).
 */
function catalogDifferences(report: ConformanceReport): string[] {
  if (!report.catalog || report.verdict === 'SETUP ERROR') return [];
  const listed = catalogDigestOf(report.rules);
  if (listed.sha256 === report.catalog.sha256 && listed.rules === report.catalog.rules) return [];
  return [
    `${REPORT_FILES.json} lists ${listed.rules} rules whose ids, levels and statements are not the catalog it names (sha256 ${report.catalog.sha256}, ${report.catalog.rules} rules): a rule was left out, added or changed.`,
  ];
}

/**
 * A scope that says every rule was selected and nothing is partial holds no rule that was not run
 * in the selection, and counts the rules its options count.
 */
function selectionDifferences(report: ConformanceReport): string[] {
  const scope = report.scope;
  if (!scope) return [];
  const problems: string[] = [];
  const notRun = report.rules.filter((rule) => rule.message === NOT_RUN_MESSAGE).map((rule) => rule.id);
  if (scope.partial.length === 0 && notRun.length > 0)
    problems.push(
      `${REPORT_FILES.json}'s scope says the run is complete, but ${notRun.length} of its rules were not run in its selection (${notRun.slice(0, 3).join(', ')}${notRun.length > 3 ? ', …' : ''}).`,
    );
  const selected = report.options?.selectedRules;
  if (selected !== undefined && selected !== scope.rulesSelected)
    problems.push(
      `${REPORT_FILES.json}'s scope says ${scope.rulesSelected} rules were selected, its options ${selected}: they are one run's.`,
    );
  return problems;
}

/** The settings the scope records and the options the report records are the same run's. */
function settingsDifferences(report: ConformanceReport): string[] {
  const settings = report.scope?.settings as Record<string, unknown> | undefined;
  const options = report.options as Record<string, unknown> | undefined;
  if (!settings || !options) return [];
  const shared = [
    'retries',
    'repeatEach',
    'maxRetries',
    'retryBudgetSeconds',
    'requestTimeoutSeconds',
    'maxRequestsPerSecond',
    'maxListPages',
    'maxListRecords',
  ];
  return shared
    .filter((name) => name in options && !isDeepStrictEqual(options[name], settings[name]))
    .map(
      (name) =>
        `${REPORT_FILES.json}'s scope says ${name} ${String(settings[name])}, its options ${String(options[name])}: they are one run's settings.`,
    );
}

/** The summary's name of a rule verdict: `not-evaluated` is counted as `notEvaluated`. */
function summaryKey(verdict: string): string {
  return verdict.replace(/-([a-z])/g, (_match, letter: string) => letter.toUpperCase());
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

/**
 * DSSE's base64 (standard, or URL-safe, as its protocol allows) read strictly: the text must be
 * exactly what encoding its bytes gives, so nothing can ride after the payload or the signature.
 */
export function canonicalBase64(text: string): Buffer | undefined {
  const bytes = Buffer.from(text, /[-_]/.test(text) ? 'base64url' : 'base64');
  const encodings = [
    bytes.toString('base64'),
    bytes.toString('base64url'),
    bytes.toString('base64url').padEnd(Math.ceil(bytes.toString('base64url').length / 4) * 4, '='),
  ];
  return encodings.includes(text) ? bytes : undefined;
}

function checkSignature(
  read: (name: string) => Buffer | undefined,
  present: ReadonlySet<string>,
  statementBytes: Buffer | undefined,
  trustedKeys: readonly KeyObject[],
  problems: string[],
): SignatureCheck {
  const envelopeBytes = read(ATTESTATION_FILES.envelope);
  const signerBytes = read(ATTESTATION_FILES.signerKey);
  if (envelopeBytes === undefined) {
    if (present.has(ATTESTATION_FILES.envelope)) return { state: 'invalid' }; // refused above
    if (signerBytes !== undefined)
      problems.push(`${ATTESTATION_FILES.signerKey} is there but ${ATTESTATION_FILES.envelope} is not.`);
    return { state: 'unsigned' };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(envelopeBytes.toString('utf8'));
  } catch {
    parsed = undefined;
  }
  if (parsed !== undefined && namesTwice(ATTESTATION_FILES.envelope, envelopeBytes, problems))
    return { state: 'invalid' };
  if (!isEnvelope(parsed) || parsed.payloadType !== IN_TOTO_PAYLOAD_TYPE) {
    problems.push(`${ATTESTATION_FILES.envelope} is not a DSSE envelope of an in-toto statement.`);
    return { state: 'invalid' };
  }
  const envelope = canonicalEnvelope(parsed, problems);
  if (!envelope) return { state: 'invalid' };
  if (envelope.signatures.length === 0) {
    problems.push(`${ATTESTATION_FILES.envelope} holds no signature.`);
    return { state: 'invalid' };
  }
  if (statementBytes !== undefined && !Buffer.from(envelope.payload, 'base64').equals(statementBytes))
    problems.push(
      `${ATTESTATION_FILES.envelope} signs a different statement than ${ATTESTATION_FILES.statement}.`,
    );
  const bundled = signerBytes === undefined ? undefined : bundledKey(signerBytes, problems);
  const trusted = trustedKeys.find((key) => verifiedSignature(envelope, key) !== undefined);
  if (trusted) {
    const fingerprint = keyFingerprint(trusted);
    if (bundled && keyFingerprint(bundled) !== fingerprint)
      problems.push(
        `${ATTESTATION_FILES.signerKey} is not the key that signed (${keyFingerprint(bundled)}, signed by ${fingerprint}).`,
      );
    return { state: 'trusted', fingerprint };
  }
  if (!bundled) {
    if (signerBytes === undefined)
      problems.push(
        trustedKeys.length > 0
          ? `${ATTESTATION_FILES.envelope} is not signed by any key given (${trustedKeys.map(keyFingerprint).join(', ')}); it names ${keyIds(envelope)}, and ${ATTESTATION_FILES.signerKey} is missing.`
          : `${ATTESTATION_FILES.envelope} is signed but ${ATTESTATION_FILES.signerKey} is missing: pass --public-key to check it.`,
      );
    return { state: 'invalid' };
  }
  const fingerprint = keyFingerprint(bundled);
  if (verifiedSignature(envelope, bundled) === undefined) {
    problems.push(
      `The signature in ${ATTESTATION_FILES.envelope} does not verify with ${ATTESTATION_FILES.signerKey} (${fingerprint}); it names ${keyIds(envelope)}.`,
    );
    return { state: 'invalid' };
  }
  return { state: 'untrusted', fingerprint };
}

function keyIds(envelope: DsseEnvelope): string {
  return envelope.signatures.map((signature) => signature.keyid).join(', ') || 'no key';
}

/** The envelope when its payload and every signature are canonical base64. */
function canonicalEnvelope(envelope: DsseEnvelope, problems: string[]): DsseEnvelope | undefined {
  const bad = [
    ...(canonicalBase64(envelope.payload) ? [] : ['the payload']),
    ...envelope.signatures.flatMap((signature, index) =>
      canonicalBase64(signature.sig) ? [] : [`signature ${index + 1}`],
    ),
  ];
  if (bad.length === 0) return envelope;
  problems.push(
    `${ATTESTATION_FILES.envelope}: ${bad.join(' and ')} ${bad.length === 1 ? 'is' : 'are'} not canonical base64 (something is written after the encoded bytes, or they are not base64 at all).`,
  );
  return undefined;
}

function bundledKey(pem: Buffer, problems: string[]): KeyObject | undefined {
  try {
    return publicKeyFromPem(pem.toString('utf8'), ATTESTATION_FILES.signerKey);
  } catch (error) {
    if (!(error instanceof KeyFileError)) throw error;
    problems.push(`${ATTESTATION_FILES.signerKey} is not an Ed25519 public key.`);
    return undefined;
  }
}
