// One registry per embedded database: PGlite keeps the database in the process that opened it, and
// two processes writing one directory corrupt it. The lock is `registry.lock` in the data
// directory, created exclusively with the holder's pid; a lock whose pid no longer runs (a registry
// killed with -9) is stale, and replaced.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const REGISTRY_LOCK = 'registry.lock';

export class DirectoryInUseError extends Error {
  constructor(directory: string, pid: number) {
    super(
      `The data directory ${directory} is in use by another registry (pid ${pid}): stop it, or give this one another --data. If no registry runs with pid ${pid}, delete ${join(directory, REGISTRY_LOCK)}.`,
    );
    this.name = 'DirectoryInUseError';
  }
}

/** Whether a process of this pid runs (one of another user's counts). */
export function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the directory's lock; `release` removes it. */
export function lockDirectory(directory: string): { release(): void } {
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  const path = join(directory, REGISTRY_LOCK);
  const mine = `${process.pid}\n`;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      writeFileSync(path, mine, { flag: 'wx', mode: 0o600 });
      return {
        release: () => {
          if (readFileSync(path, 'utf8') === mine) rmSync(path, { force: true });
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = Number.parseInt(readFileSync(path, 'utf8'), 10);
    if (Number.isInteger(holder) && holder > 0 && running(holder))
      throw new DirectoryInUseError(directory, holder);
    rmSync(path, { force: true }); // stale: its registry is gone
  }
  throw new Error(`Could not take the lock ${path}: another registry keeps taking it.`);
}
