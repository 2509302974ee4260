// Checks a bundle without trusting it: every file against SHA256SUMS, nothing added or missing,
// the statement's subjects against the files, its predicate against conformance.json, and the
// DSSE signature, with the key given or else the one in the bundle (which proves only that the
// files were not changed after signing, not who signed: its fingerprint is shown to be compared).
import type { KeyObject } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { ConformanceReport } from '../../schemas/generated/conformance-report.ts';
import { validatorFor } from '../../schemas/validators.ts';
import { REPORT_FILES } from '../report/write-reports.ts';
import { ATTESTATION_FILES, BUNDLE_DIRECTORY, SUBJECT_FILES } from './bundle-files.ts';
import { IN_TOTO_PAYLOAD_TYPE, isEnvelope, verifiedSignature } from './dsse.ts';
import { parseManifest, sha256Hex } from './manifest.ts';
import { KeyFileError, keyFingerprint, publicKeyFromPem } from './signing-key.ts';
import { PREDICATE_TYPE, STATEMENT_TYPE, predicateOf, type Statement } from './statement.ts';

/** Not a bundle at all: the user gave the wrong directory (exit 2, not a failed check). */
export class BundleInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BundleInputError';
  }
}

export type SignatureCheck =
  | { state: 'unsigned' }
  | { state: 'valid'; fingerprint: string; keyFrom: 'given' | 'bundle' }
  | { state: 'invalid' };

export interface Verification {
  /** What differs, each naming its file; empty when the bundle holds. */
  problems: string[];
  filesChecked: number;
  /** conformance.json, when it could be read as a report. */
  report?: ConformanceReport;
  signature: SignatureCheck;
}

export function verifyBundle(directory: string, publicKey?: KeyObject): Verification {
  const names = bundleEntries(directory);
  const problems: string[] = [];
  const unreadable = new Set<string>();
  const read = (name: string): Buffer | undefined => {
    // A sub-directory (listed with a trailing slash) has no bytes: it is only ever an addition.
    if (!names.includes(name) || name.endsWith('/')) return undefined;
    try {
      return readFileSync(join(directory, name));
    } catch (error) {
      if (!unreadable.has(name))
        problems.push(`${name} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}).`);
      unreadable.add(name);
      return undefined;
    }
  };

  // Every file against SHA256SUMS; nothing unlisted.
  const manifestBytes = read(ATTESTATION_FILES.manifest);
  const actual = new Map(
    names
      .filter((name) => name !== ATTESTATION_FILES.manifest)
      .map((name) => [name, sha256Hex(read(name) ?? '')]),
  );
  if (manifestBytes === undefined) problems.push(`${ATTESTATION_FILES.manifest} is missing.`);
  else {
    const { digests, badLines } = parseManifest(manifestBytes.toString('utf8'));
    for (const line of badLines)
      problems.push(
        `${ATTESTATION_FILES.manifest} line ${line} is not "<sha256>  <file name>" (or names a file twice).`,
      );
    for (const [name, digest] of digests) {
      const found = actual.get(name);
      if (found === undefined) problems.push(`${name} is missing (listed in ${ATTESTATION_FILES.manifest}).`);
      else if (found !== digest)
        problems.push(
          `${name} was changed: its SHA-256 is ${found}, ${ATTESTATION_FILES.manifest} says ${digest}.`,
        );
    }
    for (const name of actual.keys())
      if (!digests.has(name))
        problems.push(`${name} was added: it is not listed in ${ATTESTATION_FILES.manifest}.`);
  }

  // The statement: its subjects are exactly the reports and badge, with the files' digests.
  const statementBytes = read(ATTESTATION_FILES.statement);
  const statement = statementBytes && parseStatement(statementBytes, problems);
  if (statementBytes === undefined) problems.push(`${ATTESTATION_FILES.statement} is missing.`);
  if (statement) {
    const subjects = new Map(statement.subject.map((subject) => [subject.name, subject.digest.sha256]));
    for (const [name, digest] of subjects) {
      const found = actual.get(name);
      if (found === undefined)
        problems.push(`${ATTESTATION_FILES.statement} names ${name}, which is not in the bundle.`);
      else if (found !== digest)
        problems.push(
          `${ATTESTATION_FILES.statement} does not match ${name}: it gives SHA-256 ${digest}, the file's is ${found}.`,
        );
    }
    const attesting = new Set<string>(Object.values(ATTESTATION_FILES));
    for (const name of actual.keys())
      if (!attesting.has(name) && !subjects.has(name))
        problems.push(`${name} is not a subject of ${ATTESTATION_FILES.statement}.`);
    for (const name of SUBJECT_FILES)
      if (!subjects.has(name)) problems.push(`${ATTESTATION_FILES.statement} does not name ${name}.`);
  }

  // The predicate says what conformance.json says.
  const report = readReport(read(REPORT_FILES.json), problems);
  if (statement && report) {
    const expected = predicateOf(report);
    const differing = [...new Set([...Object.keys(expected), ...Object.keys(statement.predicate)])].filter(
      (key) =>
        !isDeepStrictEqual(
          (expected as Record<string, unknown>)[key],
          (statement.predicate as Record<string, unknown>)[key],
        ),
    );
    if (differing.length > 0)
      problems.push(
        `${ATTESTATION_FILES.statement}'s predicate does not match ${REPORT_FILES.json} in: ${differing.join(', ')}.`,
      );
  }

  const signature = checkSignature(read, statementBytes, publicKey, problems);
  return { problems, filesChecked: names.length, ...(report ? { report } : {}), signature };
}

/** The bundle's file names; a sub-directory or other entry counts as an added file. */
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
  // Sub-directories are reported as additions by the caller's manifest check, by name.
  return entries
    .map((entry) => (entry.isFile() ? entry.name : `${entry.name}/`))
    .filter((name) => name.length > 0);
}

function parseStatement(bytes: Buffer, problems: string[]): Statement | undefined {
  let value: Partial<Statement>;
  try {
    value = JSON.parse(bytes.toString('utf8')) as Partial<Statement>;
  } catch {
    problems.push(`${ATTESTATION_FILES.statement} is not JSON.`);
    return undefined;
  }
  const wellFormed =
    value._type === STATEMENT_TYPE &&
    value.predicateType === PREDICATE_TYPE &&
    typeof value.predicate === 'object' &&
    value.predicate !== null &&
    Array.isArray(value.subject) &&
    value.subject.every(
      (subject) => typeof subject?.name === 'string' && typeof subject.digest?.sha256 === 'string',
    );
  if (!wellFormed) {
    problems.push(
      `${ATTESTATION_FILES.statement} is not an in-toto Statement (${STATEMENT_TYPE}) of type ${PREDICATE_TYPE} with named subjects.`,
    );
    return undefined;
  }
  return value as Statement;
}

function readReport(bytes: Buffer | undefined, problems: string[]): ConformanceReport | undefined {
  if (bytes === undefined) return undefined; // named missing by the checks above
  let data: unknown;
  try {
    data = JSON.parse(bytes.toString('utf8'));
  } catch {
    problems.push(`${REPORT_FILES.json} is not JSON.`);
    return undefined;
  }
  const validate = validatorFor<ConformanceReport>('conformance-report.schema.json');
  if (!validate(data)) {
    problems.push(
      `${REPORT_FILES.json} is not a conformance report (schemas/conformance-report.schema.json).`,
    );
    return undefined;
  }
  return data;
}

function checkSignature(
  read: (name: string) => Buffer | undefined,
  statementBytes: Buffer | undefined,
  publicKey: KeyObject | undefined,
  problems: string[],
): SignatureCheck {
  const envelopeBytes = read(ATTESTATION_FILES.envelope);
  const signerBytes = read(ATTESTATION_FILES.signerKey);
  if (envelopeBytes === undefined) {
    if (publicKey)
      problems.push(
        `The bundle is not signed (no ${ATTESTATION_FILES.envelope}), but --public-key was given: a bundle from that signer must be signed.`,
      );
    if (signerBytes !== undefined)
      problems.push(`${ATTESTATION_FILES.signerKey} is there but ${ATTESTATION_FILES.envelope} is not.`);
    return { state: 'unsigned' };
  }
  let envelope: unknown;
  try {
    envelope = JSON.parse(envelopeBytes.toString('utf8'));
  } catch {
    envelope = undefined;
  }
  if (!isEnvelope(envelope) || envelope.payloadType !== IN_TOTO_PAYLOAD_TYPE) {
    problems.push(`${ATTESTATION_FILES.envelope} is not a DSSE envelope of an in-toto statement.`);
    return { state: 'invalid' };
  }
  if (statementBytes !== undefined && !Buffer.from(envelope.payload, 'base64').equals(statementBytes))
    problems.push(
      `${ATTESTATION_FILES.envelope} signs a different statement than ${ATTESTATION_FILES.statement}.`,
    );
  const bundled = signerBytes === undefined ? undefined : bundledKey(signerBytes, problems);
  const key = publicKey ?? bundled;
  if (!key) {
    if (signerBytes === undefined)
      problems.push(
        `${ATTESTATION_FILES.envelope} is signed but ${ATTESTATION_FILES.signerKey} is missing: pass --public-key to check it.`,
      );
    return { state: 'invalid' };
  }
  const fingerprint = keyFingerprint(key);
  if (verifiedSignature(envelope, key) === undefined) {
    const names = envelope.signatures.map((signature) => signature.keyid).join(', ') || 'no key';
    problems.push(
      publicKey
        ? `${ATTESTATION_FILES.envelope} is not signed by the given key (${fingerprint}); it names ${names}.`
        : `The signature in ${ATTESTATION_FILES.envelope} does not verify with ${ATTESTATION_FILES.signerKey} (${fingerprint}).`,
    );
    return { state: 'invalid' };
  }
  if (publicKey && bundled && keyFingerprint(bundled) !== fingerprint)
    problems.push(
      `${ATTESTATION_FILES.signerKey} is not the key that signed (${keyFingerprint(bundled)}, signed by ${fingerprint}).`,
    );
  return { state: 'valid', fingerprint, keyFrom: publicKey ? 'given' : 'bundle' };
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
