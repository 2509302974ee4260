// The public surface is declared, and a change of it is a reviewed change of library/*.api.md:
// the declarations the build emits for each entry point of package.json's `exports` must match
// the committed report (`npm run api-report` rewrites it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { apiReports, entryPoints } from '../../scripts/api-report.ts';
import { REPO_ROOT } from '../support/conformance-run.ts';

test('every entry point of exports has a committed API report equal to what the code declares', () => {
  const entries = entryPoints();
  assert.deepEqual(
    entries.map((entry) => entry.subpath),
    ['.', './playwright'],
  );
  const reports = apiReports(entries);
  // What an entry point exports, and the kit's types they reference; nothing internal.
  const main = reports.get('library/index.ts') ?? '';
  assert.match(main, /^\/\/ export startReferenceMock$/m);
  assert.match(main, /^\/\/ HostMap \(conformance\/requests\/host-map\)$/m);
  assert.doesNotMatch(main, /startReferenceServer/);
  for (const entry of entries) {
    const committed = readFileSync(join(REPO_ROOT, entry.report), 'utf8');
    assert.equal(
      reports.get(entry.source),
      committed,
      `The public surface of ${entry.subpath} changed: review it, then run npm run api-report and commit ${entry.report}.`,
    );
  }
});
