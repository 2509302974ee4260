// The folders of reference-server/ are layers (reference-server/README.md): each may import only the
// folders below it, so the shared vocabulary at the bottom (http/) never depends on a site, no site
// (api/, panel/, admin-api/) imports another, and the front door, which knows them all, is imported
// by nothing but the composition root. There is no exception: an import that points up fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { crossings as crossingsIn, layerOf as layerIn, modules } from '../support/layers.ts';

const REFERENCE_SERVER = resolve(dirname(fileURLToPath(import.meta.url)), '../../reference-server');

const SITES_BELOW = ['http', 'store', 'listeners', 'addressing', 'journal', 'behaviours'];
const SITES = ['api', 'panel', 'admin-api'];

/** What each layer may import from the others (its own modules are always allowed), bottom first. */
const MAY_IMPORT: Record<string, readonly string[]> = {
  http: [],
  store: ['http'],
  listeners: ['http'],
  addressing: ['http', 'store'],
  journal: ['http', 'store'],
  behaviours: ['http', 'store'],
  api: ['http', 'store', 'addressing'],
  panel: ['http', 'store', 'journal'],
  'admin-api': ['http', 'store', 'journal', 'behaviours'],
  steps: ['http', 'listeners', 'addressing', 'api'],
  'front-door': [...SITES_BELOW, ...SITES, 'steps'],
  'server-options.ts': ['http', 'listeners', 'steps'],
  'server.ts': [...SITES_BELOW, ...SITES, 'steps', 'front-door', 'server-options.ts'],
  cli: [...SITES_BELOW, ...SITES, 'steps', 'front-door', 'server-options.ts', 'server.ts'],
};

const layerOf = (path: string): string => layerIn(REFERENCE_SERVER, path);
const crossings = (file: string, source: string): string[] =>
  crossingsIn(REFERENCE_SERVER, MAY_IMPORT, file, source);

test('every module of reference-server/ lives in a known layer', () => {
  for (const file of modules(REFERENCE_SERVER)) {
    assert.ok(
      layerOf(file) in MAY_IMPORT,
      `${relative(REFERENCE_SERVER, file)}: add its layer to MAY_IMPORT`,
    );
  }
});

test('no module of reference-server/ imports a layer above its own', () => {
  const found = modules(REFERENCE_SERVER).flatMap((file) => crossings(file, readFileSync(file, 'utf8')));
  assert.deepEqual(found, []);
});

test('the layers are in order: no layer may import one that may import it', () => {
  for (const [layer, below] of Object.entries(MAY_IMPORT)) {
    for (const other of below) assert.ok(!(MAY_IMPORT[other] ?? []).includes(layer), `${layer} ⇄ ${other}`);
  }
});

test('the layer check sees an import that points up, static, dynamic or type-only', () => {
  const source = [
    "import type { RequestFacts } from '../api/request-pipeline.ts';",
    "import { serveSite } from '../front-door/sites.ts';",
    "const panel = await import('../panel/panel.ts');",
  ].join('\n');
  assert.deepEqual(crossings(join(REFERENCE_SERVER, 'admin-api/admin-api.ts'), source), [
    'admin-api/admin-api.ts imports api/request-pipeline.ts',
    'admin-api/admin-api.ts imports front-door/sites.ts',
    'admin-api/admin-api.ts imports panel/panel.ts',
  ]);
  assert.deepEqual(crossings(join(REFERENCE_SERVER, 'front-door/sites.ts'), source), []);
});
