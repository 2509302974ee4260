// The folder `merge` is given (cli/commands/blob-folder.ts): blob reports and shard records found
// directly in it or in a folder per shard, gathered in one folder for Playwright; the same record
// twice is one record, two different ones of a shard are refused; no blob at all says what to pass.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { blobFilesUnder, gatheredFolder, noBlobsMessage } from '../../cli/commands/blob-folder.ts';
import { scratchDirectory } from '../support/scratch.ts';

function withFolder(body: (folder: string) => void): void {
  const folder = scratchDirectory('blob-folder-test-');
  try {
    body(folder);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

function write(path: string, content: string): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, content);
}

test('blobs directly in the folder: merged from the folder itself', () => {
  withFolder((folder) => {
    write(join(folder, 'report-1.zip'), 'one');
    write(join(folder, 'conformance-shard-1-of-2.json'), '{}');
    const found = blobFilesUnder(folder);
    assert.deepEqual(found.blobs, [join(folder, 'report-1.zip')]);
    assert.equal(gatheredFolder(folder, found, join(folder, 'never-made')), folder);
  });
});

test('a folder per shard, as a CI download leaves them: gathered in one, the same record once', () => {
  withFolder((folder) => {
    const artifacts = join(folder, 'artifacts');
    for (const shard of ['1', '2']) {
      write(join(artifacts, `shard-${shard}`, 'blob-report', 'report.zip'), `blob ${shard}`);
      write(
        join(artifacts, `shard-${shard}`, 'reports', 'blob', `conformance-shard-${shard}-of-2.json`),
        shard,
      );
    }
    // Shard 2's machine kept shard 1's record too.
    write(join(artifacts, 'shard-2', 'reports', 'blob', 'conformance-shard-1-of-2.json'), '1');
    const found = blobFilesUnder(artifacts);
    assert.equal(found.blobs.length, 2);
    const gathered = gatheredFolder(artifacts, found, join(folder, 'gathered'));
    assert.deepEqual(readdirSync(gathered).sort(), [
      'conformance-shard-1-of-2.json',
      'conformance-shard-2-of-2.json',
      'shard-1-blob-report-report.zip',
      'shard-2-blob-report-report.zip',
    ]);
  });
});

test('two different records of one shard are refused, naming them', () => {
  withFolder((folder) => {
    write(join(folder, 'a', 'report.zip'), 'a');
    write(join(folder, 'a', 'conformance-shard-1-of-2.json'), 'this run');
    write(join(folder, 'b', 'conformance-shard-1-of-2.json'), 'an earlier run');
    assert.throws(
      () => gatheredFolder(folder, blobFilesUnder(folder), join(folder, 'gathered')),
      /holds two different conformance-shard-1-of-2\.json/,
    );
  });
});

test('no blob report anywhere: nothing found, and the message says what to pass', () => {
  withFolder((folder) => {
    write(join(folder, 'reports', 'conformance.json'), '{}');
    assert.deepEqual(blobFilesUnder(folder).blobs, []);
    assert.match(noBlobsMessage('reports-of-ci'), /No blob report \(a \.zip file\) in reports-of-ci/);
    assert.match(noBlobsMessage('x'), /blob-report\//);
  });
});
