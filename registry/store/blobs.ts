// A bundle's large files outside the embedded database: PGlite copies a file it inserts into its
// WebAssembly memory, which grows to the largest it needed and is never given back (a 40 MiB HAR
// cost about 290 MiB of RSS for good). A file at or above the threshold is kept in the data
// directory instead, content-addressed: BLOBS/ab/abcdef… (its SHA-256), written under a temporary
// name in the same directory (a hard link of the upload's file when both are on one file system,
// else a copy), fsync'd, renamed, and the directory fsync'd — so a name that exists is a whole
// file. The blob is written before the transaction whose row references it: a crash in between
// leaves at worst a blob no row references, which `removeUnreferenced` deletes at start. A blob is
// deleted only by a sweep, alone (blob-lock.ts), and only when no row references it any more.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, rmSync, type ReadStream } from 'node:fs';
import { copyFile, link, mkdir, open, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Queryable } from '../database/database.ts';
import { PublishOrSweep } from './blob-lock.ts';

const SHA256 = /^[0-9a-f]{64}$/;
const SHARD = /^[0-9a-f]{2}$/;
const TEMPORARY = '.tmp-';

/** Files from this size up go to the blob store; smaller ones stay in their row (cheap there). */
export const DEFAULT_BLOB_THRESHOLD = 256 * 1024;

/** References looked up per query when sweeping: a bounded parameter, whatever the store holds. */
const SWEEP_BATCH = 1000;

/** A blob the database references is missing or not the size it was stored with. */
export class BlobDamaged extends Error {
  constructor(sha256: string, what: string) {
    super(
      `the blob ${sha256} of the registry's blob store ${what}: restore the data directory's blobs/ from a backup`,
    );
    this.name = 'BlobDamaged';
  }
}

export class BlobStore {
  private readonly lock = new PublishOrSweep();

  constructor(
    readonly directory: string,
    /** Files of at least this many bytes go to the store. */
    readonly threshold = DEFAULT_BLOB_THRESHOLD,
  ) {
    mkdirSync(directory, { recursive: true, mode: 0o700 });
  }

  /** Whether a file of `size` bytes is kept here rather than in its row. */
  holds(size: number): boolean {
    return size >= this.threshold;
  }

  /**
   * Where blob `sha256` is. Only a SHA-256 in lower-case hex names one: whatever a row holds, the
   * path stays inside the store.
   */
  pathOf(sha256: string): string {
    if (!SHA256.test(sha256))
      throw new Error('a blob is named by a SHA-256 in hex; the name given is not one');
    return join(this.directory, sha256.slice(0, 2), sha256);
  }

  /** Runs a publish's work (its `put`s, then its transaction) where no sweep can delete its blobs. */
  publishing<T>(work: () => Promise<T>): Promise<T> {
    return this.lock.publish(work);
  }

  /**
   * Makes blob `sha256` from the file at `source` (whose SHA-256 the caller computed), without
   * blocking the event loop: a large file's fsync takes a while.
   */
  async put(sha256: string, source: string): Promise<void> {
    const path = this.pathOf(sha256);
    const shard = join(this.directory, sha256.slice(0, 2));
    await mkdir(shard, { recursive: true, mode: 0o700 });
    const temporary = join(shard, `${TEMPORARY}${randomBytes(8).toString('hex')}`);
    try {
      try {
        await link(source, temporary);
      } catch {
        await copyFile(source, temporary); // another file system (EXDEV), or links not allowed
      }
      await syncPath(temporary);
      // Replacing a blob that exists replaces it with the same bytes: its name is its content.
      await rename(temporary, path);
    } finally {
      await rm(temporary, { force: true });
    }
    await syncPath(shard);
  }

  /** A stream of blob `sha256`, after checking it is there and of the size its row says. */
  async read(sha256: string, size: number): Promise<ReadStream> {
    let handle;
    try {
      handle = await open(this.pathOf(sha256), 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new BlobDamaged(sha256, 'is missing');
      throw error;
    }
    const found = (await handle.stat()).size;
    if (found !== size) {
      await handle.close();
      throw new BlobDamaged(sha256, `holds ${found} bytes where ${size} were stored`);
    }
    // The stream owns the handle from here: it closes it at the end, or when destroyed.
    return handle.createReadStream();
  }

  /**
   * Deletes those of `candidates` no row references (after a retention pass, or a publish that
   * was refused after writing its blobs), alone. Returns the blobs deleted.
   */
  sweep(db: Queryable, candidates: readonly string[]): Promise<string[]> {
    return this.lock.sweep(async () => {
      const deleted: string[] = [];
      const unique = [...new Set(candidates)].filter((sha256) => SHA256.test(sha256));
      for (let start = 0; start < unique.length; start += SWEEP_BATCH) {
        const batch = unique.slice(start, start + SWEEP_BATCH);
        const kept = await referenced(db, batch);
        for (const sha256 of batch)
          if (!kept.has(sha256)) {
            rmSync(this.pathOf(sha256), { force: true });
            deleted.push(sha256);
          }
      }
      return deleted;
    });
  }

  /**
   * At start: deletes every blob no row references (a crash between a blob and its transaction)
   * and every temporary file (a crash while one was written). Returns how many of each.
   */
  async removeUnreferenced(db: Queryable): Promise<{ blobs: number; temporary: number }> {
    let temporary = 0;
    const named: string[] = [];
    for (const shard of readdirSync(this.directory)) {
      if (!SHARD.test(shard)) continue;
      for (const name of readdirSync(join(this.directory, shard))) {
        if (name.startsWith(TEMPORARY)) {
          rmSync(join(this.directory, shard, name), { force: true });
          temporary++;
        } else if (SHA256.test(name) && name.startsWith(shard)) named.push(name);
      }
    }
    const blobs = (await this.sweep(db, named)).length;
    return { blobs, temporary };
  }
}

/** Which of `hashes` a row of bundle_files references as its blob. */
async function referenced(db: Queryable, hashes: readonly string[]): Promise<Set<string>> {
  const rows = await db.query<{ sha256: string }>(
    'SELECT DISTINCT sha256 FROM bundle_files WHERE in_blob AND sha256 = ANY($1::text[])',
    [hashes],
  );
  return new Set(rows.map((row) => row.sha256));
}

/** fsync of a file or a directory (a directory's entries: a rename is durable once it is synced). */
async function syncPath(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
