// A publish, from a received upload to a stored run: the upload's files were written as they
// arrived into a private directory under the registry's uploads directory (upload-files.ts), and
// are checked there by the same code as `verify` (verifyBundle), with the publisher's own keys as
// the only trusted ones. Anything verify would not call VERIFIED is refused, naming each problem;
// so is a bundle that carries a private key or a registry token. Only then is the run stored, in
// one transaction, each file read from disk as it is inserted; the directory is removed whatever
// happens (withUploadDirectory).
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { ATTESTATION_FILES } from '../../conformance/attestation/bundle-files.ts';
import { keyFingerprint } from '../../conformance/attestation/signing-key.ts';
import { BundleInputError, verifyBundle } from '../../conformance/attestation/verify-bundle.ts';
import { REPORT_FILES } from '../../conformance/report/write-reports.ts';
import type { Database } from '../database/database.ts';
import { running } from '../database/directory-lock.ts';
import type { BlobStore } from '../store/blobs.ts';
import type { BundleFile } from '../store/bundle-files.ts';
import {
  DeploymentOwnedError,
  NoSuchDeploymentError,
  storeRun,
  type OnStored,
  type StoreResult,
} from '../store/runs.ts';
import { TargetChangedError } from '../store/targets.ts';
import type { Publisher } from './publishers.ts';
import { ruleOutcomes, runFacts } from './run-facts.ts';
import type { WrittenFile } from './upload-files.ts';
import type { UploadHead } from './upload-stream.ts';

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

/** An upload read whole: what it names, and its files, on disk in `directory`. */
export interface ReceivedUpload extends UploadHead {
  directory: string;
  files: WrittenFile[];
  /** The first file that holds a private key or a registry token, if one does. */
  secretIn: string | undefined;
}

const UPLOAD_PREFIX = 'registry-upload-';

/**
 * Removes the upload directories of registries that no longer run (killed with -9 mid-publish),
 * at start; returns what it removed. A directory of a running registry, or of no pid, is kept.
 */
export function removeStaleUploads(root: string): string[] {
  const removed: string[] = [];
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return removed; // no uploads directory yet: nothing was left
  }
  for (const name of names) {
    const pid = Number(new RegExp(`^${UPLOAD_PREFIX}(\\d+)-`).exec(name)?.[1]);
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid || running(pid)) continue;
    rmSync(join(root, name), { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}

/**
 * A run the registry calls its own is the operator's (`registry recheck`), signed by an operator's
 * key (checked below, as any signature), of the deployment's bound target: a recheck never moves it.
 */
function registryCheckRefusal(publisher: Publisher, upload: UploadHead): void {
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

/** Runs `work` with a new upload directory under `root`, removed afterwards whatever happens. */
export async function withUploadDirectory<T>(
  root: string,
  work: (directory: string) => Promise<T>,
): Promise<T> {
  // The directory is made and removed off the event loop (libuv's threads): a publish's dozen
  // file system calls here kept every other request waiting (about 3 ms a publish, loaded).
  await mkdir(root, { recursive: true, mode: 0o700 });
  // Named with this process's pid: a registry killed mid-publish leaves it, and the next start
  // removes it (removeStaleUploads) without touching a running registry's.
  const directory = await mkdtemp(join(root, `${UPLOAD_PREFIX}${process.pid}-`));
  try {
    return await work(directory);
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

export async function receiveBundle(
  db: Database,
  publisher: Publisher,
  upload: ReceivedUpload,
  /** Where the large files go (the embedded database's registry); none: every file in its row. */
  blobs?: BlobStore,
  /** Run in the run's own transaction once it is stored (storeRun's `onStored`). */
  onStored?: OnStored,
): Promise<StoreResult> {
  if (upload.checkedByRegistry) registryCheckRefusal(publisher, upload);
  if (publisher.keys.length === 0)
    throw new PublishRefused(
      403,
      'not_a_publisher',
      `${publisher.name} may read but not publish: the publishers file gives it no signing key${publisher.operator ? " (an operator's key is the registry's, which registry recheck signs with)" : ''}.`,
    );
  if (upload.secretIn !== undefined)
    throw new PublishRefused(
      422,
      'secret_in_bundle',
      `${upload.secretIn} holds a secret (a private key or a registry token): a bundle never needs one. Nothing was stored; remove it and sign the run again.`,
    );
  const { directory } = upload;
  const written = new Map(upload.files.map((file) => [file.name, file]));
  const manifest = written.get(ATTESTATION_FILES.manifest);
  let verification;
  try {
    verification = await verifyBundle(directory, { trustedKeys: publisher.keys });
  } catch (error) {
    if (!(error instanceof BundleInputError)) throw error;
    throw new PublishRefused(
      422,
      'not_a_bundle',
      `Not a bundle: ${upload.files.length === 0 ? 'no files were sent' : `no ${ATTESTATION_FILES.manifest} or ${ATTESTATION_FILES.statement}`}. Publish the bundle directory a signed run wrote (REPORTS/bundle).`,
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
  const reportFile = written.get(REPORT_FILES.json);
  const statementFile = written.get(ATTESTATION_FILES.statement);
  if (!reportFile || !statementFile) throw new Error('a verified bundle lacks its report or statement');
  const facts = runFacts(report, {
    deployment: upload.deployment,
    version: upload.version,
    signer: signature.fingerprint,
    publisher: publisher.name,
    checkedBy: upload.checkedByRegistry ? 'registry' : 'publisher',
    statementSha256: statementFile.sha256,
    reportSha256: reportFile.sha256,
  });
  try {
    const store = (files: BundleFile[]): Promise<StoreResult> =>
      storeRun(db, facts, { sha256: manifest.sha256, files }, ruleOutcomes(report), {
        targetMoved: upload.targetMoved,
        onStored,
      });
    return blobs
      ? await storeWithBlobs(db, blobs, directory, upload.files, store)
      : await store(upload.files.map((file) => inRow(directory, file)));
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
}

/** A file read from disk only as its row is inserted: one file in memory at a time. */
function inRow(directory: string, { name, sha256, size }: WrittenFile): BundleFile {
  return { name, sha256, size, read: () => readFileSync(join(directory, name)) };
}

/**
 * The large files made blobs (linked from the upload's directory) before the transaction that
 * references them, the others in their rows. Blobs this publish made that end up referenced by no
 * row (refused, or a duplicate of a bundle whose files retention removed) are deleted after.
 */
async function storeWithBlobs(
  db: Database,
  blobs: BlobStore,
  directory: string,
  written: readonly WrittenFile[],
  store: (files: BundleFile[]) => Promise<StoreResult>,
): Promise<StoreResult> {
  const large = written.filter((file) => blobs.holds(file.size));
  let result: StoreResult | undefined;
  try {
    result = await blobs.publishing(async () => {
      for (const file of large) await blobs.put(file.sha256, join(directory, file.name));
      const isBlob = new Set(large.map((file) => file.name));
      return store(
        written.map(({ name, sha256, size }) =>
          isBlob.has(name)
            ? { name, sha256, size, inBlob: true as const }
            : inRow(directory, { name, sha256, size }),
        ),
      );
    });
    return result;
  } finally {
    if (result?.stored !== 'new' && large.length > 0)
      await blobs.sweep(
        db,
        large.map((file) => file.sha256),
      );
  }
}
