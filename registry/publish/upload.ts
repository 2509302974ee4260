// What `registry publish` sends and POST /api/v1/runs reads: one JSON object naming the deployment
// and the version, with the bundle's files by name, base64-encoded. The names are checked before
// anything is written: a file of a bundle is a plain name in the bundle's own directory.
import { closeSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** A deployment's name: also a path segment of the pages and the badge. */
export const DEPLOYMENT_NAME = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;
/** A version label: semver (with pre-release and build) or a commit. */
export const VERSION_LABEL = /^[0-9A-Za-z][0-9A-Za-z.+_-]{0,127}$/;
export const FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
/** More files than any bundle has (the reports, the badge, the statement, its envelope and key, SHA256SUMS). */
export const MAX_FILES = 32;

export class UploadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UploadError';
  }
}

export function deploymentProblem(name: unknown): string | undefined {
  return typeof name === 'string' && DEPLOYMENT_NAME.test(name)
    ? undefined
    : `"deployment" must be a name of lower-case letters, digits and dashes (1 to 64, not starting or ending with a dash), e.g. acme-production; got ${describe(name)}.`;
}

export function versionProblem(label: unknown): string | undefined {
  return typeof label === 'string' && VERSION_LABEL.test(label)
    ? undefined
    : `"version" must be a version label (semver such as 1.4.2 or 2.0.0-rc.1+build.5, or a commit hash): letters, digits and . + _ - up to 128; got ${describe(label)}.`;
}

/** A short, safe rendering of what was sent, for a message. */
function describe(value: unknown): string {
  if (typeof value !== 'string') return value === undefined ? 'nothing' : `a ${typeof value}`;
  return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
}

/** Bytes of a file read and encoded at a time: a multiple of 3, so each piece is whole base64. */
const PIECE = 3 * 16 * 1024;

/** Reads until the buffer is full or the file ends: only the last piece may be short (padded). */
function fill(fd: number, buffer: Buffer): number {
  let filled = 0;
  for (let read = -1; filled < buffer.length && read !== 0; filled += read)
    read = readSync(fd, buffer, filled, buffer.length - filled, null);
  return filled;
}

/**
 * The upload of a bundle directory (its top-level regular files), a piece at a time: each file is
 * read and base64-encoded PIECE bytes at a time, so the sender holds no more of the bundle than
 * the registry does. The bytes are JSON.stringify's of the same object, file by file.
 */
export function* uploadPieces(
  directory: string,
  deployment: string,
  version: string,
  targetMoved = false,
  checkedByRegistry = false,
): Generator<Buffer> {
  yield Buffer.from(
    `{"deployment":${JSON.stringify(deployment)},"version":${JSON.stringify(version)},"files":{`,
  );
  let first = true;
  for (const name of readdirSync(directory)) {
    const path = join(directory, name);
    if (!statSync(path).isFile()) continue;
    yield Buffer.from(`${first ? '' : ','}${JSON.stringify(name)}:"`);
    first = false;
    const fd = openSync(path, 'r');
    try {
      const buffer = Buffer.alloc(PIECE);
      for (let filled = fill(fd, buffer); filled > 0; filled = fill(fd, buffer))
        yield Buffer.from(buffer.subarray(0, filled).toString('base64'));
    } finally {
      closeSync(fd);
    }
    yield Buffer.from('"');
  }
  yield Buffer.from(
    `}${targetMoved ? ',"targetMoved":true' : ''}${checkedByRegistry ? ',"checkedBy":"registry"' : ''}}`,
  );
}

/** The upload of a bundle directory whole, as text (tests and benchmarks that send it as is). */
export function uploadOf(
  directory: string,
  deployment: string,
  version: string,
  targetMoved = false,
  checkedByRegistry = false,
): string {
  return Buffer.concat([
    ...uploadPieces(directory, deployment, version, targetMoved, checkedByRegistry),
  ]).toString('utf8');
}
