// Reading a bundle without trusting it: which entries the directory holds, SHA256SUMS first (a
// file it does not list, or a name no bundle has, is refused before it is opened), then each
// listed file hashed as a stream within a size bound. What verify-bundle.ts parses is read here
// too, whole, within a smaller bound. A file that is not a regular one is never opened.
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, lstatSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ATTESTATION_FILES, BUNDLE_DIRECTORY, SUBJECT_FILES } from './bundle-files.ts';
import { parseManifest } from './manifest.ts';
import { BundleInputError } from './bundle-input-error.ts';

/** Every name a bundle may hold: the statement's subjects and the files that attest them. */
const BUNDLE_FILES: ReadonlySet<string> = new Set([...SUBJECT_FILES, ...Object.values(ATTESTATION_FILES)]);

/**
 * Each file SHA256SUMS lists, by name, with its SHA-256 as it is now; every file that is refused,
 * missing or changed is a problem. Undefined when SHA256SUMS itself cannot be read.
 */
export async function listedFileHashes(
  directory: string,
  names: readonly string[],
  maxFileBytes: number,
  problems: string[],
): Promise<Map<string, string> | undefined> {
  // SHA256SUMS first: it says which files may be read at all.
  const manifestBytes = readBounded(directory, ATTESTATION_FILES.manifest, names, problems, 1024 * 1024);
  if (manifestBytes === undefined) {
    if (!names.includes(ATTESTATION_FILES.manifest))
      problems.push(`${ATTESTATION_FILES.manifest} is missing: no file of the bundle can be checked.`);
    return undefined;
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
  return hashes;
}

/** The bundle's entry names; a sub-directory is listed with a trailing slash. */
export function bundleEntries(directory: string): string[] {
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

export function readBounded(
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
