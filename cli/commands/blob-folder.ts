// The folder `merge` is given, as a user has it: the blob reports (`*.zip`) and shard records of a
// sharded run, gathered in one folder — or, as a CI job's artifact download leaves them, one
// sub-folder per shard (`shard-1/blob-report/report-….zip`). Playwright only merges the `.zip`
// files directly in the folder it is given, and answers anything else with a stack trace: here
// the files are found wherever they are under the folder and gathered in one, and a folder without
// any is a usage error that says what to pass.
import { existsSync, linkSync, mkdirSync, readFileSync, readdirSync, symlinkSync } from 'node:fs';
import { basename, join, relative } from 'node:path';

/** What `merge` needs from the folder: every blob report and shard record under it. */
export interface BlobFiles {
  blobs: string[];
  records: string[];
}

const RECORD = /^conformance-shard-\d+-of-\d+\.json$/;
/** Deep enough for `artifacts/shard-1/reports/blob/…`, bounded for a folder given by mistake. */
const MAX_DEPTH = 4;

/** The blob reports and shard records under `folder`, at most MAX_DEPTH folders down. */
export function blobFilesUnder(folder: string, depth = 0): BlobFiles {
  const found: BlobFiles = { blobs: [], records: [] };
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory() && depth < MAX_DEPTH) {
      const below = blobFilesUnder(path, depth + 1);
      found.blobs.push(...below.blobs);
      found.records.push(...below.records);
    } else if (entry.isFile() && entry.name.endsWith('.zip')) found.blobs.push(path);
    else if (entry.isFile() && RECORD.test(entry.name)) found.records.push(path);
  }
  return found;
}

/** What to tell a user whose folder holds no blob report. */
export function noBlobsMessage(folder: string): string {
  return [
    `No blob report (a .zip file) in ${folder} or the folders below it.`,
    'Pass the folder where the blob reports of the shards were gathered: for `run --shard`, each',
    "shard's reports/blob/; for your own playwright.config.ts, the folder its blob reporter wrote",
    "(['blob'] in its reporters, by default blob-report/) and the shard records conformanceReporter()",
    "leaves in its outputDir's blob/.",
  ].join('\n');
}

/**
 * One folder holding every file found, for Playwright: `folder` itself when they are all directly
 * in it, else `into`, with each file linked there under a name made unique by where it was.
 */
export function gatheredFolder(folder: string, found: BlobFiles, into: string): string {
  const files = [...found.blobs, ...found.records];
  if (files.every((file) => join(folder, basename(file)) === file)) return folder;
  mkdirSync(into, { recursive: true });
  for (const file of files) {
    // A record keeps its name (merge reads the shard from it); two blobs of the same name in
    // different shard folders are told apart by their path.
    const name = RECORD.test(basename(file))
      ? basename(file)
      : relative(folder, file).split(/[\\/]/).join('-');
    const target = join(into, name);
    if (existsSync(target)) {
      // The same record gathered twice (a shard's folder kept an earlier one) is one record.
      if (readFileSync(target).equals(readFileSync(file))) continue;
      throw new Error(
        `${folder} holds two different ${name} (one is ${relative(folder, file)}): keep the one of the run to merge.`,
      );
    }
    try {
      linkSync(file, target);
    } catch {
      symlinkSync(file, target);
    }
  }
  return into;
}
