// A run's bundle files in the database: each in its row (bytea), or — a large file on the embedded
// database — in the blob store (blobs.ts), the row keeping its SHA-256, size and `in_blob`. Reads
// take both forms, so a database written before the blob store keeps serving its files as stored.
import type { Queryable } from '../database/database.ts';
import { insertFiles, type FileOfBundle } from './file-rows.ts';

/**
 * One file of a bundle as a publish hands it over: its bytes, or its size and a reader (on disk:
 * read only as its statement is made, file-rows.ts, so a few small files or one file are in memory,
 * never the bundle), or a blob made already (BlobStore.put, before the transaction: the row only
 * references it).
 */
export type BundleFile = FileOfBundle | ({ name: string; sha256: string } & { size: number; inBlob: true });

export interface BundleContent {
  /** The bundle's address: the SHA-256 of its SHA256SUMS, which names every other file's digest. */
  sha256: string;
  files: BundleFile[];
}

/**
 * Inserts the rows of a bundle's files (in the transaction that stores its run): a blob's row
 * references it; the others carry their bytes, a few small files to a statement (file-rows.ts).
 */
export async function insertBundleFiles(tx: Queryable, bundle: BundleContent): Promise<void> {
  const inRows: FileOfBundle[] = [];
  for (const file of bundle.files)
    if ('inBlob' in file)
      await tx.query(
        'INSERT INTO bundle_files (bundle_sha256, name, sha256, content, in_blob, size_bytes) VALUES ($1, $2, $3, NULL, true, $4)',
        [bundle.sha256, file.name, file.sha256, file.size],
      );
    else inRows.push(file);
  await insertFiles(tx, bundle.sha256, inRows);
}

/** A stored file: its bytes from its row, or the blob that holds them. */
export type StoredFile = { content: Buffer } | { blob: string; size: number };

/** One file of a run's bundle, as published. */
export async function bundleFile(
  db: Queryable,
  runId: number,
  name: string,
): Promise<StoredFile | undefined> {
  const [row] = await db.query<{
    content: Uint8Array | null;
    in_blob: boolean;
    sha256: string;
    size_bytes: string | number | null;
  }>(
    `SELECT f.content, f.in_blob, f.sha256, f.size_bytes FROM bundle_files f JOIN runs r ON r.bundle_sha256 = f.bundle_sha256
     WHERE r.id = $1 AND f.name = $2`,
    [runId, name],
  );
  if (!row) return undefined;
  if (row.in_blob) return { blob: row.sha256, size: Number(row.size_bytes) };
  return { content: Buffer.from(row.content ?? new Uint8Array()) };
}

export async function bundleFileNames(db: Queryable, runId: number): Promise<string[]> {
  const rows = await db.query<{ name: string }>(
    `SELECT f.name FROM bundle_files f JOIN runs r ON r.bundle_sha256 = f.bundle_sha256 WHERE r.id = $1 ORDER BY f.name`,
    [runId],
  );
  return rows.map((row) => row.name);
}
