// Directories that are costly to make and never change once made (a database cluster fresh from
// its initdb), made once and kept under the system's temporary directory, keyed by what they are
// made from, so that every later test process — of this `npm test` and the next — copies one
// instead of making its own. A template is never written after it is complete: it appears by one
// rename of a finished directory, so a process sees either none or a whole one; two processes making
// it at once each make their own and the first rename wins. Each test works on its own copy, so no
// test sees another's data.
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** Written last into a template being made: a directory without it is not one. */
export const TEMPLATE_COMPLETE = 'template-complete';

/** Kept across runs on purpose (one template per version, never a test's work): not a scratch directory. */
// eslint-disable-next-line no-restricted-syntax
const CACHE = join(tmpdir(), `tenant-auth-conformance-cache-${process.getuid?.() ?? 'user'}`);

const making = new Map<string, Promise<string>>();

/**
 * The template named `key` (its path), made by `make` into an empty directory when there is none
 * yet; made at most once per process.
 */
export function cachedTemplate(
  key: string,
  make: (directory: string) => void | Promise<void>,
): Promise<string> {
  let template = making.get(key);
  if (template === undefined) {
    template = makeTemplate(join(CACHE, key), make);
    making.set(key, template);
  }
  return template;
}

async function makeTemplate(
  template: string,
  make: (directory: string) => void | Promise<void>,
): Promise<string> {
  if (existsSync(join(template, TEMPLATE_COMPLETE))) return template;
  mkdirSync(dirname(template), { recursive: true });
  const building = mkdtempSync(`${template}.building-`);
  try {
    await make(building);
    writeFileSync(join(building, TEMPLATE_COMPLETE), '');
    renameSync(building, template);
  } catch (error) {
    rmSync(building, { recursive: true, force: true });
    // Another process's rename came first (the place is taken): its template serves.
    if (!existsSync(join(template, TEMPLATE_COMPLETE))) throw error;
  }
  return template;
}
