// The reference server's data directory (default `.reference-data/`): what must outlive a restart
// — the key store, the HMAC secret its HMACs are computed under, the admin token. Every file is
// written whole or not at all, readable by its owner only.
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';

/** Under the current directory, never inside an installed package. */
export const DEFAULT_DATA_DIR = resolve('.reference-data');

/** A data directory that cannot be used, with what to do about it. */
export class DataDirError extends Error {
  constructor(message: string, cause?: unknown) {
    super(message, { cause });
    this.name = 'DataDirError';
  }
}

export function ensureDataDir(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new DataDirError(
      `Cannot create the data directory ${dir} (${codeOf(error)}). Choose another with --data-dir.`,
      error,
    );
  }
}

/**
 * Replaces `path` atomically (temporary file, fsync, rename), so that a crash leaves either the
 * old content or the new, never half of it.
 */
export function writeFileAtomically(path: string, content: string): void {
  const temporary = temporaryPathFor(path);
  writeSynced(temporary, content);
  try {
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}

/** `writeFileAtomically` without blocking the event loop: the write and the fsync run off it. */
export async function writeFileAtomicallyAsync(path: string, content: string): Promise<void> {
  const temporary = temporaryPathFor(path);
  try {
    const file = await open(temporary, 'wx', 0o600);
    try {
      await file.writeFile(content);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/**
 * Where a write of `path` is prepared: `{path}.{pid}.{8 hex}.tmp`. A crash can leave one behind;
 * `removeStaleTemporaryFiles` removes those at start.
 */
function temporaryPathFor(path: string): string {
  return `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
}

/** A temporary file of `temporaryPathFor`, with the pid of the process that made it. */
export const TEMPORARY_FILE = /^.+\.(\d+)\.[0-9a-f]{8}\.tmp$/;

/**
 * The content of the secret file `name` in `dir`, created by `generate` if it does not exist yet.
 * Two processes starting at once end up with the same value: the first to link its file wins.
 * The file's mode is set to 0600 in either case.
 */
export function readOrCreateSecretFile(dir: string, name: string, generate: () => string): string {
  ensureDataDir(dir);
  const path = join(dir, name);
  const existing = readIfPresent(path);
  if (existing !== undefined) {
    chmodSync(path, 0o600);
    return existing.trim();
  }
  const temporary = temporaryPathFor(path);
  writeSynced(temporary, `${generate()}\n`);
  try {
    linkSync(temporary, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    rmSync(temporary, { force: true });
  }
  return readFileSync(path, 'utf8').trim();
}

/** Creates `path` (which must not exist) with mode 0600 and `content`, flushed to the disk. */
function writeSynced(path: string, content: string): void {
  const fd = openSync(path, 'wx', 0o600);
  try {
    writeSync(fd, content);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The file's text, or undefined when it does not exist. */
export function readIfPresent(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new DataDirError(`Cannot read ${path} (${codeOf(error)}).`, error);
  }
}

export function codeOf(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? String(error);
}
