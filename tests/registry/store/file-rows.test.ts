// A bundle's files inserted a few to a statement (registry/store/file-rows.ts) are stored as the
// rows the earlier one-statement-per-file insert made, on the embedded database and on a server:
// for sets of files of any bytes (NUL, backslashes, quotes and braces, which an array's text must
// escape) and of sizes around the bound, each row has the file's name, digest and exact bytes,
// the same rows as the old insert gives, and no statement carries more than the bound but a file
// alone. A bundle of the suite's size is one statement.
import { createHash } from 'node:crypto';
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Queryable } from '../../../registry/database/database.ts';
import {
  FILES_PER_STATEMENT_BYTES,
  insertFiles,
  type FileOfBundle,
} from '../../../registry/store/file-rows.ts';
import { BACKENDS, openBackend, stopBackends, type OpenedBackend } from '../support/backends.ts';

const digest = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');
let bundles = 0;
const nextSha = (): string => digest(Buffer.from(`bundle ${process.pid} ${++bundles}`));

/** Bytes rich in what an array literal escapes, of a size near, under or over the bound. */
const content = fc
  .tuple(
    fc.oneof(
      fc.nat(64),
      fc.integer({ min: FILES_PER_STATEMENT_BYTES / 2 - 64, max: FILES_PER_STATEMENT_BYTES / 2 + 64 }),
      fc.integer({ min: FILES_PER_STATEMENT_BYTES - 2, max: FILES_PER_STATEMENT_BYTES + 2 }),
    ),
    fc.uint8Array({ minLength: 1, maxLength: 16 }),
    fc.constantFrom(0x00, 0x5c, 0x22, 0x7b, 0x2c, 0x20),
  )
  .map(([size, pattern, special]) => {
    const bytes = Buffer.alloc(size);
    for (let index = 0; index < size; index++)
      bytes[index] = index % 7 === 0 ? special : (pattern[index % pattern.length] ?? 0);
    return bytes;
  });
const fileSets = fc.uniqueArray(
  fc.tuple(fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._-]{0,20}$/), content, fc.boolean()),
  {
    minLength: 1,
    maxLength: 8,
    selector: ([name]) => name,
  },
);

type Row = { name: string; sha256: string; content: Uint8Array };
const rowsOf = (db: Queryable, sha: string): Promise<Row[]> =>
  db.query<Row>('SELECT name, sha256, content FROM bundle_files WHERE bundle_sha256 = $1 ORDER BY name', [
    sha,
  ]);

for (const backend of BACKENDS)
  describe(`bundle files a few to a statement (${backend})`, () => {
    let opened: OpenedBackend | undefined;
    after(async () => {
      await opened?.close();
      await stopBackends();
    });

    test('stores the rows one statement per file stored, each file byte for byte', async () => {
      opened = await openBackend(backend);
      const { db } = opened;
      await fc.assert(
        fc.asyncProperty(fileSets, async (set) => {
          const files: FileOfBundle[] = set.map(([name, bytes, onDisk]) =>
            onDisk
              ? { name, sha256: digest(bytes), size: bytes.length, read: () => bytes }
              : { name, sha256: digest(bytes), content: bytes },
          );
          const [batched, single] = [nextSha(), nextSha()];
          const statements: number[] = [];
          await db.transaction(async (tx) => {
            for (const sha of [batched, single])
              await tx.query('INSERT INTO bundles (sha256, size_bytes) VALUES ($1, 0)', [sha]);
            const counting: Queryable = {
              query: (sql, params) => {
                if (sql.includes('bundle_files')) statements.push(statements.length);
                return tx.query(sql, params);
              },
            };
            await insertFiles(counting, batched, files);
            // The earlier insert, one statement per file.
            for (const [name, bytes] of set)
              await tx.query(
                'INSERT INTO bundle_files (bundle_sha256, name, sha256, content) VALUES ($1, $2, $3, $4)',
                [single, name, digest(bytes), bytes],
              );
          });
          const stored = await rowsOf(db, batched);
          const expected = [...set].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
          assert.deepEqual(
            stored.map((row) => [row.name, row.sha256, digest(Buffer.from(row.content))]),
            expected.map(([name, bytes]) => [name, digest(bytes), digest(bytes)]),
          );
          for (const [index, row] of stored.entries())
            assert.ok(Buffer.from(row.content).equals(expected[index]?.[1] ?? Buffer.alloc(1)));
          const old = await rowsOf(db, single);
          assert.deepEqual(
            stored.map((row) => [row.name, row.sha256, Buffer.from(row.content).toString('base64')]),
            old.map((row) => [row.name, row.sha256, Buffer.from(row.content).toString('base64')]),
          );
          // Files fill a statement in order up to the bound; one that does not fit starts the next.
          let expectedStatements = 0;
          let bytes = Infinity;
          for (const [, file] of set) {
            if (bytes + file.length > FILES_PER_STATEMENT_BYTES) {
              expectedStatements++;
              bytes = 0;
            }
            bytes += file.length;
          }
          assert.equal(statements.length, expectedStatements);
        }),
        { numRuns: 25 },
      );
    });

    test("a bundle of the suite's size (ten files, about 106 KB) is one statement", async () => {
      const { db } = opened ?? (opened = await openBackend(backend));
      const sizes = [727, 1430, 39541, 23473, 14236, 506, 14527, 113, 6422, 4591];
      const files = sizes.map((size, index) => {
        const bytes = Buffer.alloc(size, index);
        return { name: `file-${index}`, sha256: digest(bytes), content: bytes };
      });
      const sha = nextSha();
      let statements = 0;
      await db.transaction(async (tx) => {
        await tx.query('INSERT INTO bundles (sha256, size_bytes) VALUES ($1, 0)', [sha]);
        await insertFiles({ query: (sql, params) => (statements++, tx.query(sql, params)) }, sha, files);
      });
      assert.equal(statements, 1);
      assert.equal((await rowsOf(db, sha)).length, files.length);
    });
  });
