// Where the kit's own files are, whether it runs from the repository's TypeScript (through tsx)
// or compiled to dist/ in an installed package. Data files (fixtures, schemas, the spec) stay at
// the package root in both cases; code sits one level deeper when compiled.
import { readFileSync, realpathSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** True when this file was compiled to JavaScript (dist/), false when run as TypeScript. */
export const COMPILED = import.meta.url.endsWith('.js');

/** The repository root, or dist/ of an installed package: where the code files are. */
export const CODE_ROOT = resolve(import.meta.dirname, '..');

/** The directory holding package.json, fixtures/, schemas/ and spec/. */
export const PACKAGE_ROOT = COMPILED && basename(CODE_ROOT) === 'dist' ? dirname(CODE_ROOT) : CODE_ROOT;

/** A code file by its path without extension: `codeFile('reference-server/cli/cli')`. */
export function codeFile(pathWithoutExtension: string): string {
  return join(CODE_ROOT, `${pathWithoutExtension}${COMPILED ? '.js' : '.ts'}`);
}

/**
 * The command that runs a code file with Node: compiled files need nothing more, TypeScript
 * goes through tsx (a development dependency, present in a clone of the repository).
 */
export function nodeCommand(pathWithoutExtension: string): string[] {
  // By URL, so that it resolves whatever the working directory of the command.
  const typescript = COMPILED ? [] : ['--import', import.meta.resolve('tsx')];
  return [process.execPath, ...typescript, codeFile(pathWithoutExtension)];
}

/** Whether the module at `moduleUrl` is the script Node was started with (not an import). */
export function isMainModule(moduleUrl: string): boolean {
  const script = process.argv[1];
  if (script === undefined) return false;
  try {
    // An installed bin is a symbolic link to the file.
    return realpathSync(script) === realpathSync(fileURLToPath(moduleUrl));
  } catch {
    return false;
  }
}

/**
 * The environment of a Playwright process the kit starts on its own config (`run`, `merge`),
 * which loads no file but the kit's code files. Compiled, they are JavaScript, and Playwright's
 * module loader, there to compile TypeScript on the fly, is only a thread that every import of
 * the runner and of each worker waits on: about a fifth of a run's CPU (bench/test-time-results.md).
 * From the TypeScript sources (a clone of the repository), the loader is needed and stays.
 */
export function kitPlaywrightEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return COMPILED ? { ...env, PW_DISABLE_TS_ESM: '1' } : env;
}

/** The kit's name and version, from its own package.json (at the package root in both cases). */
export function kitPackage(): { name: string; version: string } {
  const manifest = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as {
    name: string;
    version: string;
  };
  return { name: manifest.name, version: manifest.version };
}
