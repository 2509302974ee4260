// A publish, from a parsed upload to a stored run: the bundle is written to a private temporary
// directory and checked by the same code as `verify` (verifyBundle), with the publisher's own keys
// as the only trusted ones. Anything verify would not call VERIFIED is refused, naming each
// problem; so is a bundle that carries a private key or a registry token. Only then is
// the run stored, in one transaction; the temporary directory is removed whatever happens.
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ATTESTATION_FILES } from '../../conformance/attestation/bundle-files.ts';
import { keyFingerprint } from '../../conformance/attestation/signing-key.ts';
import { BundleInputError, verifyBundle } from '../../conformance/attestation/verify-bundle.ts';
import { REPORT_FILES } from '../../conformance/report/write-reports.ts';
import type { Database } from '../database/database.ts';
import { running } from '../database/directory-lock.ts';
import { DeploymentOwnedError, NoSuchDeploymentError, storeRun, type StoreResult } from '../store/runs.ts';
import { TargetChangedError } from '../store/targets.ts';
import type { Publisher } from './publishers.ts';
import { ruleOutcomes, runFacts } from './run-facts.ts';
import type { Upload } from './upload.ts';

/** A publish refused: the HTTP status, a stable code and a sentence naming the problem. */
export class PublishRefused extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'PublishRefused';
  }
}

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');
const PRIVATE_KEY = /-----BEGIN [A-Z ]*PRIVATE KEY-----/;
/** Any registry token, anyone's: the files are served as published, so none may hold one. */
const ANY_TOKEN = /tacr_[A-Za-z0-9_-]{43}/;

const UPLOAD_PREFIX = 'registry-upload-';

/**
 * Removes the upload directories of registries that no longer run (killed with -9 mid-publish),
 * at start; returns what it removed. A directory of a running registry, or of no pid, is kept.
 */
export function removeStaleUploads(): string[] {
  const removed: string[] = [];
  for (const name of readdirSync(tmpdir())) {
    const pid = Number(new RegExp(`^${UPLOAD_PREFIX}(\\d+)-`).exec(name)?.[1]);
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid || running(pid)) continue;
    rmSync(join(tmpdir(), name), { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}

/**
 * A run the registry calls its own is the operator's (`registry recheck`), signed by an operator's
 * key (checked below, as any signature), of the deployment's bound target: a recheck never moves it.
 */
function registryCheckRefusal(publisher: Publisher, upload: Upload): void {
  if (!publisher.operator)
    throw new PublishRefused(
      403,
      'not_allowed',
      `Only the registry's operator publishes a run checked by the registry (registry recheck); ${publisher.name} is a publisher. Publish without "checkedBy". Nothing was stored.`,
    );
  if (upload.targetMoved)
    throw new PublishRefused(
      400,
      'bad_upload',
      'A run checked by the registry never moves the target: it checks the target the deployment is bound to. Nothing was stored.',
    );
}

export async function receiveBundle(
  db: Database,
  publisher: Publisher,
  upload: Upload,
  presentedToken: string,
): Promise<StoreResult> {
  if (upload.checkedByRegistry) registryCheckRefusal(publisher, upload);
  if (publisher.keys.length === 0)
    throw new PublishRefused(
      403,
      'not_a_publisher',
      `${publisher.name} may read but not publish: the publishers file gives it no signing key${publisher.operator ? " (an operator's key is the registry's, which registry recheck signs with)" : ''}.`,
    );
  for (const [name, content] of upload.files) {
    const text = content.toString('latin1');
    if (PRIVATE_KEY.test(text) || ANY_TOKEN.test(text) || text.includes(presentedToken))
      throw new PublishRefused(
        422,
        'secret_in_bundle',
        `${name} holds a secret (a private key or a registry token): a bundle never needs one. Nothing was stored; remove it and sign the run again.`,
      );
  }
  const manifest = upload.files.get(ATTESTATION_FILES.manifest);
  // Named with this process's pid: a registry killed mid-publish leaves it, and the next start
  // removes it (removeStaleUploads) without touching a running registry's.
  const directory = mkdtempSync(join(tmpdir(), `${UPLOAD_PREFIX}${process.pid}-`));
  try {
    for (const [name, content] of upload.files)
      writeFileSync(join(directory, name), content, { mode: 0o600 });
    let verification;
    try {
      verification = await verifyBundle(directory, { trustedKeys: publisher.keys });
    } catch (error) {
      if (!(error instanceof BundleInputError)) throw error;
      throw new PublishRefused(
        422,
        'not_a_bundle',
        `Not a bundle: ${upload.files.size === 0 ? 'no files were sent' : `no ${ATTESTATION_FILES.manifest} or ${ATTESTATION_FILES.statement}`}. Publish the bundle directory a signed run wrote (REPORTS/bundle).`,
      );
    }
    const { problems, report, signature } = verification;
    if (problems.length > 0 || !report || manifest === undefined)
      throw new PublishRefused(
        422,
        'bundle_not_verified',
        `The bundle is NOT VERIFIED, nothing was stored: ${(problems.length > 0 ? problems : [`${REPORT_FILES.json} is missing`]).join(' ')}`,
      );
    if (signature.state === 'unsigned')
      throw new PublishRefused(
        422,
        'bundle_unsigned',
        `The bundle is not signed: run with --sign-key using one of ${publisher.name}'s keys (${publisher.keys.map(keyFingerprint).join(', ')}).`,
      );
    if (signature.state !== 'trusted')
      throw new PublishRefused(
        403,
        'signer_not_trusted',
        `The bundle is signed by ${signature.state === 'untrusted' ? signature.fingerprint : 'a key that does not verify'}, which is not a key of ${publisher.name} (${publisher.keys.map(keyFingerprint).join(', ')}); nothing was stored.`,
      );
    const reportBytes = upload.files.get(REPORT_FILES.json);
    const statementBytes = upload.files.get(ATTESTATION_FILES.statement);
    if (!reportBytes || !statementBytes) throw new Error('a verified bundle lacks its report or statement');
    const facts = runFacts(report, {
      deployment: upload.deployment,
      version: upload.version,
      signer: signature.fingerprint,
      publisher: publisher.name,
      checkedBy: upload.checkedByRegistry ? 'registry' : 'publisher',
      statementSha256: sha256(statementBytes),
      reportSha256: sha256(reportBytes),
    });
    const files = [...upload.files].map(([name, content]) => ({ name, sha256: sha256(content), content }));
    try {
      return await storeRun(db, facts, { sha256: sha256(manifest), files }, ruleOutcomes(report), {
        targetMoved: upload.targetMoved,
      });
    } catch (error) {
      if (error instanceof TargetChangedError) throw new PublishRefused(409, 'target_changed', error.message);
      if (error instanceof NoSuchDeploymentError)
        throw new PublishRefused(404, 'no_such_deployment', `${error.message} Nothing was stored.`);
      if (!(error instanceof DeploymentOwnedError)) throw error;
      throw new PublishRefused(
        403,
        'deployment_owned',
        `The deployment "${upload.deployment}" is published by another publisher: choose another name. Nothing was stored.`,
      );
    }
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}
