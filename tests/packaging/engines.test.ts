// The repository's own install is warning-free on the Node it declares: npm ci warns EBADENGINE
// for any package of the lock whose `engines.node` the running Node does not satisfy (a
// development dependency's included), so none may be there. semver is npm's own reading of a
// range, present in the tree as a dependency of the tools.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { REPO_ROOT } from '../support/conformance-run.ts';

const semver = createRequire(import.meta.url)('semver') as {
  satisfies(version: string, range: string): boolean;
};

interface Lock {
  packages: Record<string, { version?: string; engines?: { node?: string } | string[] }>;
}

test('every package of the lock accepts this Node, and the package declares it', () => {
  const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
    engines: { node: string };
  };
  assert.ok(semver.satisfies(process.version, manifest.engines.node), `${process.version} is declared`);
  const lock = JSON.parse(readFileSync(join(REPO_ROOT, 'package-lock.json'), 'utf8')) as Lock;
  const refused = Object.entries(lock.packages).flatMap(([path, entry]) => {
    const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
    return range === undefined || path === '' || semver.satisfies(process.version, range)
      ? []
      : [`${path}@${entry.version ?? '?'} requires node ${range}`];
  });
  assert.deepEqual(refused, []);
});
