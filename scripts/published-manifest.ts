// The package.json a user installs holds what they need (name, version, entry points, bin,
// dependencies, engines, license), not the repository's scripts and development dependencies:
// its `prepare` made npm warn of an install script, and forty scripts meant nothing outside a
// clone. `npm pack` and `npm publish` run `prepack` (build, then `trim`: the published manifest
// written over package.json, the repository's kept beside it) and, once the tarball is made,
// `postpack` (`restore`). A `trim` that finds a kept manifest restores it first: a pack that
// stopped between the two leaves nothing behind for the next.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { isMainModule } from '../kit/package-root.ts';

const ROOT = resolve(import.meta.dirname, '..');
const MANIFEST = join(ROOT, 'package.json');
/** The repository's own manifest while a pack runs. */
const KEPT = join(ROOT, '.package.json.packing');

/** The fields a user's install reads, in this order; everything else stays in the repository. */
export const PUBLISHED_FIELDS = [
  'name',
  'version',
  'description',
  'license',
  'repository',
  'homepage',
  'keywords',
  'type',
  'exports',
  'engines',
  'bin',
  'files',
  'dependencies',
  'peerDependencies',
  'peerDependenciesMeta',
  'optionalDependencies',
] as const;

/** The published manifest of the repository's. */
export function publishedManifest(manifest: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    PUBLISHED_FIELDS.filter((field) => manifest[field] !== undefined).map((field) => [
      field,
      manifest[field],
    ]),
  );
}

function trim(): void {
  if (existsSync(KEPT)) restore();
  const text = readFileSync(MANIFEST, 'utf8');
  writeFileSync(KEPT, text);
  writeFileSync(
    MANIFEST,
    `${JSON.stringify(publishedManifest(JSON.parse(text) as Record<string, unknown>), null, 2)}\n`,
  );
}

function restore(): void {
  if (existsSync(KEPT)) renameSync(KEPT, MANIFEST);
}

if (isMainModule(import.meta.url)) {
  const step = process.argv[2];
  if (step === 'trim') trim();
  else if (step === 'restore') restore();
  else {
    console.error('Usage: tsx scripts/published-manifest.ts trim|restore');
    process.exitCode = 2;
  }
}
