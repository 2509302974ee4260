// The kit as its package installs it: the tests start its commands from dist/ (what
// `npm run build` compiles and `npm pack` ships), never its TypeScript through tsx, so that what
// they check is what a user runs. A compiled command also costs a fifth of the CPU (`rules`:
// 0.08 s against 0.37 s through tsx, which compiles TypeScript in each process). dist/ must then be built from the sources
// as they are: `npm run test:unit` rebuilds it when it is not (scripts/dist-current.ts), and a
// test file run alone refuses to start a command from a stale dist/ (assertDistCurrent).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { PACKAGE_ROOT } from '../../kit/package-root.ts';

const DIST = join(PACKAGE_ROOT, 'dist');
/** By URL: a script run in another directory, where `tsx` alone would not resolve. */
const TSX = import.meta.resolve('tsx');

/** The compiled form of a code file, by its path without extension: `compiled('cli/main')`. */
export function compiled(pathWithoutExtension: string): string {
  return join(DIST, `${pathWithoutExtension}.js`);
}

/**
 * A compiled module that a child process imports (a team's config, a script given to Node), after
 * checking that dist/ is current: the package's `tenant-auth-conformance/playwright` is
 * `compiledModule('library/playwright')`.
 */
export function compiledModule(pathWithoutExtension: string): string {
  assertDistCurrent();
  return compiled(pathWithoutExtension);
}

/** `tenant-auth-conformance`: the file package.json's `bin` names, as an installed package runs it. */
export const KIT_BIN = join(PACKAGE_ROOT, kitBin());

function kitBin(): string {
  const manifest = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as {
    bin: Record<string, string>;
  };
  const [bin, more] = Object.values(manifest.bin);
  if (bin === undefined || more !== undefined) throw new Error('package.json names one bin, the kit’s.');
  return bin;
}

/**
 * Node's arguments to run `script`: a compiled file as it is (after checking that dist/ is
 * current), a TypeScript file (a script of the repository's own, never shipped) through tsx.
 */
export function nodeArguments(script: string): string[] {
  if (script.endsWith('.ts')) return ['--import', TSX, script];
  assertDistCurrent();
  return [script];
}

/** The directories and files tsconfig.build.json compiles, relative to the package root. */
function compiledSources(): string[] {
  const config = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'tsconfig.build.json'), 'utf8')) as {
    include: string[];
  };
  return config.include;
}

function filesUnder(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path, { withFileTypes: true }).flatMap((entry) =>
    entry.name === 'node_modules' ? [] : filesUnder(join(path, entry.name)),
  );
}

const isSource = (file: string): boolean => file.endsWith('.ts') && !file.endsWith('.d.ts');

/**
 * Why dist/ is not what `npm run build` would make of the sources now, one reason a line; empty
 * when it is. By modification times: a source newer than its compiled file (or without one), a
 * build configuration newer than the oldest compiled file, a compiled file whose source is gone
 * (Playwright would still find a deleted spec there); and a bin that is not executable. tsc's own `--incremental` does not serve:
 * it trusts its build info even when dist/ was deleted, and never deletes a compiled file.
 */
export function staleDist(): string[] {
  let outputs: string[];
  try {
    outputs = filesUnder(DIST).filter((file) => file.endsWith('.js'));
  } catch {
    return ['there is no dist/'];
  }
  const reasons: string[] = [];
  const mtime = (file: string): number => statSync(file).mtimeMs;
  const sources = compiledSources()
    .flatMap((path) => filesUnder(join(PACKAGE_ROOT, path)))
    .filter(isSource);
  const sourceOf = (output: string): string =>
    join(PACKAGE_ROOT, relative(DIST, output).replace(/\.js$/, '.ts'));
  const outputSet = new Set(outputs);
  for (const source of sources) {
    const output = join(DIST, relative(PACKAGE_ROOT, source).replace(/\.ts$/, '.js'));
    if (!outputSet.has(output)) reasons.push(`${relative(PACKAGE_ROOT, source)} is not compiled`);
  }
  for (const output of outputs) {
    const source = sourceOf(output);
    let sourceTime: number;
    try {
      sourceTime = mtime(source);
    } catch {
      reasons.push(`${relative(PACKAGE_ROOT, output)} has no source any more`);
      continue;
    }
    if (sourceTime > mtime(output))
      reasons.push(`${relative(PACKAGE_ROOT, source)} changed since it was compiled`);
  }
  // `npm run build` makes the bin executable, as an install does: `npx tenant-auth-conformance`
  // in the repository (the reference server's banner prints it) runs it directly.
  if (((statSync(KIT_BIN, { throwIfNoEntry: false })?.mode ?? 0) & 0o100) === 0)
    reasons.push(`${relative(PACKAGE_ROOT, KIT_BIN)} is not executable`);
  const oldest = Math.min(...outputs.map(mtime));
  for (const config of ['tsconfig.json', 'tsconfig.build.json'])
    if (mtime(join(PACKAGE_ROOT, config)) > oldest) reasons.push(`${config} changed since dist/ was built`);
  return reasons;
}

let checked = false;

/** Throws, saying what to run, when dist/ is not built from the current sources; once per process. */
export function assertDistCurrent(): void {
  if (checked) return;
  const reasons = staleDist();
  if (reasons.length > 0)
    throw new Error(
      `The tests run the compiled kit, and dist/ is stale: ${reasons.slice(0, 5).join('; ')}` +
        `${reasons.length > 5 ? ` (and ${reasons.length - 5} more)` : ''}. Run \`npm run build\` first ` +
        '(`npm run test:unit` does when needed).',
    );
  checked = true;
}
