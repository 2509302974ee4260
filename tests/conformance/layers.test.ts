// The folders of conformance/ are layers (conformance/README.md): each may import only the
// folders below it, so the catalogs and the judging code never depend on the run or the reports,
// and a new piece of the run can't reach back into them. dpdm finds cycles between files; this
// finds an import that crosses the layers the wrong way before it becomes one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { crossings, layerOf as layerIn, modules, relativeImports } from '../support/layers.ts';

const CONFORMANCE = resolve(dirname(fileURLToPath(import.meta.url)), '../../conformance');

/** What each folder may import from the others (its own modules are always allowed). */
const MAY_IMPORT: Record<string, readonly string[]> = {
  'setting-checks.ts': [],
  'run-option-table.ts': ['setting-checks.ts'],
  'env.ts': ['run-option-table.ts'],
  'settings.ts': ['env.ts', 'run-option-table.ts', 'setting-checks.ts'],
  catalog: [],
  redaction: [],
  requests: ['redaction', 'env.ts', 'settings.ts'],
  deployment: ['catalog', 'requests', 'env.ts', 'settings.ts'],
  judging: ['catalog', 'redaction', 'requests', 'deployment', 'env.ts', 'settings.ts'],
  report: ['catalog', 'redaction', 'requests', 'deployment', 'env.ts', 'settings.ts'],
  'client-report': ['catalog', 'redaction', 'requests', 'report', 'env.ts', 'settings.ts'],
  attestation: ['catalog', 'redaction', 'requests', 'deployment', 'report', 'env.ts', 'settings.ts'],
  run: [
    'catalog',
    'redaction',
    'requests',
    'deployment',
    'judging',
    'report',
    'attestation',
    'env.ts',
    'settings.ts',
    // The table of options, which the flags and the help of the run are made from.
    'run-option-table.ts',
  ],
};

/** The layer of a path inside conformance/: its first folder, or the top-level file's name. */
const layerOf = (path: string): string => layerIn(CONFORMANCE, path);

test('every module of conformance/ lives in a known layer', () => {
  for (const file of modules(CONFORMANCE)) {
    assert.ok(layerOf(file) in MAY_IMPORT, `${relative(CONFORMANCE, file)}: add its folder to MAY_IMPORT`);
  }
});

test('no module of conformance/ imports a layer above its own', () => {
  // schemas/ and reference-server/ are outside conformance/: not its layers.
  const found = modules(CONFORMANCE).flatMap((file) =>
    crossings(CONFORMANCE, MAY_IMPORT, file, readFileSync(file, 'utf8')),
  );
  assert.deepEqual(found, []);
});

test('the layer check sees an import that crosses the wrong way', () => {
  const source =
    "import { failsRun } from '../report/verdict.ts';\nconst x = await import('../run/test.ts');";
  assert.deepEqual(relativeImports(source), ['../report/verdict.ts', '../run/test.ts']);
  assert.ok(!MAY_IMPORT.judging?.includes(layerOf(join(CONFORMANCE, 'report/verdict.ts'))));
});
