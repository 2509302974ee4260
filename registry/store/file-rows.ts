// A bundle's files as rows of bundle_files, inserted inside the publish's transaction (runs.ts).
// Each statement costs about as much as the bytes it carries: a bundle of the suite's size (ten
// files, 106 KB) took 17 ms of CPU in ten statements on the embedded database and 10 ms in one,
// and on a server each statement is a round trip. So the small files go in one statement while
// their sizes add up to FILES_PER_STATEMENT_BYTES; a file that does not fit goes alone, as one
// parameter (the driver's own form for a large value). At most twice that many bytes (the files
// and the one value they are sent in), or the one file, are in memory at a time: a file is read
// from disk only as its statement is made.
import type { Queryable } from '../database/database.ts';

export const FILES_PER_STATEMENT_BYTES = 256 * 1024;

/** A file of a bundle: its bytes, or its size and a reader (a publish's files are on disk). */
export type FileOfBundle = { name: string; sha256: string } & (
  { content: Buffer } | { size: number; read: () => Buffer }
);

/** A file's size, whether its bytes are at hand or it is known by its size (on disk, in a blob). */
export const sizeOf = (file: { content: Buffer } | { size: number }): number =>
  'content' in file ? file.content.length : file.size;

export async function insertFiles(
  tx: Queryable,
  bundleSha256: string,
  files: readonly FileOfBundle[],
): Promise<void> {
  let batch: { name: string; sha256: string; content: Buffer }[] = [];
  let bytes = 0;
  const flush = async (): Promise<void> => {
    const [only] = batch;
    if (batch.length === 1 && only)
      await tx.query(
        'INSERT INTO bundle_files (bundle_sha256, name, sha256, content) VALUES ($1, $2, $3, $4)',
        [bundleSha256, only.name, only.sha256, only.content],
      );
    else if (batch.length > 1) {
      // One bytea of the files end to end, cut by offsets: a single bytea goes as its bytes on
      // both databases, where a bytea[] would go as hex text (twice the bytes, escaped).
      const starts: number[] = [];
      let at = 1; // substring counts from 1
      for (const file of batch) {
        starts.push(at);
        at += file.content.length;
      }
      await tx.query(
        `INSERT INTO bundle_files (bundle_sha256, name, sha256, content)
         SELECT $1, f.name, f.sha256, substring($4::bytea FROM f.start FOR f.length)
         FROM unnest($2::text[], $3::text[], $5::int[], $6::int[]) AS f(name, sha256, start, length)`,
        [
          bundleSha256,
          batch.map((file) => file.name),
          batch.map((file) => file.sha256),
          Buffer.concat(batch.map((file) => file.content)),
          starts,
          batch.map((file) => file.content.length),
        ],
      );
    }
    batch = [];
    bytes = 0;
  };
  for (const file of files) {
    const size = sizeOf(file);
    if (bytes + size > FILES_PER_STATEMENT_BYTES) await flush();
    batch.push({
      name: file.name,
      sha256: file.sha256,
      content: 'content' in file ? file.content : file.read(),
    });
    bytes += size;
  }
  await flush();
}
