// A fresh embedded database for a test, copied from a template instead of made anew. PGlite makes a
// database in an empty directory by running initdb inside its WebAssembly PostgreSQL: about 7 s of
// CPU, where opening an existing one costs 0.7 s — and the registry's tests open dozens. The
// template (template-cache.ts, keyed by PGlite's version and the opening code) is made by the call
// the registry makes (`openEmbedded` on an empty directory), then closed. Starting in an empty
// directory, what this skips, stays proved by the tests that start the registry there
// (start-in-empty-directory).
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../../../kit/package-root.ts';
import { openEmbedded } from '../../../registry/database/database.ts';
import { cachedTemplate, TEMPLATE_COMPLETE } from './template-cache.ts';

/**
 * What the template is made from: PGlite's version and the code that opens the database (a change
 * of how the registry makes one, its options, makes a new template rather than serve a stale one).
 */
function templateKey(): string {
  // Its exports name no package.json: found beside the package root's other dependencies.
  const manifest = join(PACKAGE_ROOT, 'node_modules', '@electric-sql', 'pglite', 'package.json');
  const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string };
  const opener = readFileSync(join(PACKAGE_ROOT, 'registry', 'database', 'database.ts'));
  return `pglite-${version}-${createHash('sha256').update(opener).digest('hex').slice(0, 12)}`;
}

/** Puts a new, empty embedded database (not migrated) in `directory`, which must not exist yet or be empty. */
export async function copyEmbeddedTemplate(directory: string): Promise<void> {
  const template = await cachedTemplate(templateKey(), async (building) => {
    const db = await openEmbedded(building);
    await db.close();
  });
  cpSync(template, directory, { recursive: true, filter: (source) => !source.endsWith(TEMPLATE_COMPLETE) });
}

/**
 * A registry's `--data` directory whose embedded database (`DATA/database`) is already made, for a
 * `registry serve` whose test is not about its first start: the registry migrates it as it would
 * any database it finds.
 */
export async function seededDataDirectory(data: string): Promise<string> {
  mkdirSync(data, { recursive: true, mode: 0o700 });
  await copyEmbeddedTemplate(join(data, 'database'));
  return data;
}
