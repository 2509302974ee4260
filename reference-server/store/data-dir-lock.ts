// One server per data directory: two servers on one directory each write the key store from their
// own memory, so that a key one of them acknowledged vanishes, or a key one revoked comes back.
// The lock is the file `server.lock`, created exclusively and holding the pid of its server. A lock
// whose pid no longer runs (a server killed with -9) is stale and taken over; a takeover is done
// under a second exclusive file, so that two servers finding the same stale lock do not both win.
import { randomBytes } from 'node:crypto';
import { linkSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { codeOf, DataDirError, ensureDataDir, TEMPORARY_FILE } from './data-dir.ts';

export const LOCK_FILE = 'server.lock';
const TAKEOVER_SUFFIX = '.takeover';
const ATTEMPTS = 5;

export interface DataDirLock {
  /** Removes the lock, if it is still this process's. */
  release(): void;
}

/** Takes the directory's lock, or throws a DataDirError naming the directory and the holder's pid. */
export function lockDataDir(dir: string): DataDirLock {
  ensureDataDir(dir);
  const path = join(dir, LOCK_FILE);
  const mine = `${process.pid}\n`;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    if (createExclusive(path, mine)) {
      removeStaleTemporaryFiles(dir);
      return { release: () => removeIfHolding(path, mine) };
    }
    const held = readText(path);
    if (held === undefined) continue; // released meanwhile: try again
    const holder = pidIn(held);
    if (holder !== undefined && isRunning(holder)) {
      throw new DataDirError(
        `The data directory ${dir} is in use by another reference server (pid ${holder}). ` +
          `Stop that server, or give this one another directory with --data-dir. ` +
          `If no reference server runs with pid ${holder}, delete ${path}.`,
      );
    }
    takeOver(path, held);
  }
  throw new DataDirError(
    `Could not lock the data directory ${dir}: other servers keep taking it. Start one server at a time.`,
  );
}

/** Removes the stale lock `path` held with `staleText`, unless another server is taking it over. */
function takeOver(path: string, staleText: string): void {
  const guard = `${path}${TAKEOVER_SUFFIX}`;
  if (!createExclusive(guard, `${process.pid}\n`)) {
    // Another server is taking over; a guard left by one that died is removed for the next attempt.
    const taker = pidIn(readText(guard) ?? '');
    if (taker === undefined || !isRunning(taker)) rmSync(guard, { force: true });
    return;
  }
  try {
    if (readText(path) === staleText) rmSync(path, { force: true });
  } finally {
    rmSync(guard, { force: true });
  }
}

/**
 * Removes what interrupted writes left (`keys.json.{pid}.{hex}.tmp`): each is a whole copy of the
 * store that nothing reads. Only files of processes no longer running, so that another process's
 * write under way (the admin token made before the lock is taken) is left alone.
 */
function removeStaleTemporaryFiles(dir: string): void {
  for (const name of readdirSync(dir)) {
    const pid = TEMPORARY_FILE.exec(name)?.[1];
    if (pid !== undefined && !isRunning(Number(pid))) rmSync(join(dir, name), { force: true });
  }
}

/** Creates `path` with `content` unless it exists; linked whole, so that no reader sees it empty. */
function createExclusive(path: string, content: string): boolean {
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    writeFileSync(temporary, content, { mode: 0o600, flag: 'wx' });
    linkSync(temporary, path);
    return true;
  } catch (error) {
    if (codeOf(error) === 'EEXIST') return false;
    throw new DataDirError(`Cannot create ${path} (${codeOf(error)}).`, error);
  } finally {
    rmSync(temporary, { force: true });
  }
}

function removeIfHolding(path: string, mine: string): void {
  if (readText(path) === mine) rmSync(path, { force: true });
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

function pidIn(text: string): number | undefined {
  const pid = Number(text.trim());
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

function isRunning(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return codeOf(error) === 'EPERM';
  }
}
