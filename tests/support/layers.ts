// The layer checks of a source folder whose folders are layers (conformance/, reference-server/):
// each layer names the layers it may import, and an import of any other is a crossing.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** Every `.ts` module below `dir`. */
export function modules(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return modules(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The layer of a path inside `root`: its first folder, or the top-level file's name. */
export function layerOf(root: string, path: string): string {
  return relative(root, path).split('/')[0] ?? '';
}

/** Every relative import, static or dynamic, type-only or not: a type import is an arrow too. */
export function relativeImports(source: string): string[] {
  const specifiers = source.matchAll(/(?:from\s+|import\s*\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g);
  return [...specifiers].map((match) => match[1] ?? '');
}

/**
 * The imports of `file` (its text: `source`) that cross into a layer its own may not import, as
 * `a/x.ts imports b/y.ts`; imports from outside `root` are not layers of it and pass.
 */
export function crossings(
  root: string,
  mayImport: Readonly<Record<string, readonly string[]>>,
  file: string,
  source: string,
): string[] {
  const from = layerOf(root, file);
  return relativeImports(source).flatMap((specifier) => {
    const imported = resolve(dirname(file), specifier);
    if (relative(root, imported).startsWith('..')) return [];
    const to = layerOf(root, imported);
    if (to === from || (mayImport[from] ?? []).includes(to)) return [];
    return [`${relative(root, file)} imports ${relative(root, imported)}`];
  });
}

/**
 * The imports of a module's text that load code when it is imported: every static `import` or
 * `export … from` but `import type` (a dynamic `import()` loads later, when it runs).
 */
export function loadingImports(source: string): string[] {
  const statements = source.matchAll(
    /^\s*(?:import|export)\s+(?!type\b)[^'";]*?\bfrom\s+['"]([^'"]+)['"]|^\s*import\s+['"]([^'"]+)['"]/gm,
  );
  return [...statements].map((match) => match[1] ?? match[2] ?? '');
}

/** What importing `entry` loads: its modules of this repository and the packages they import. */
export function loadedBy(entry: string): { files: string[]; packages: string[] } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string): void => {
    if (files.has(file)) return;
    files.add(file);
    for (const specifier of loadingImports(readFileSync(file, 'utf8'))) {
      if (specifier.startsWith('.')) visit(resolve(dirname(file), specifier));
      else packages.add(specifier);
    }
  };
  visit(entry);
  return { files: [...files], packages: [...packages] };
}
