// The packed kit installed into an empty project, once for the suite of tests/packaging/install.test.ts:
// `npm pack` in a copy of the repository, the tarball installed from the npm cache that `npm ci`
// filled, the installed kit serving the reference server, and its keys exported. Every test of
// the suite reads it through the function installedKitPerSuite returns; the commands run as a
// user's would, each in its own process group.
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { REPO_ROOT } from '../support/conformance-run.ts';
import { assertDistCurrent } from '../support/compiled-kit.ts';
import { cleanEnv } from '../support/reference-cli.ts';
import { runInGroup, stopped, type Finished } from '../support/process-group.ts';
import { scratchDirectory } from '../support/scratch.ts';

/** Packing compiles the kit (prepare) and installing may read package metadata: generous bounds. */
const STEP_TIMEOUT_MS = 240_000;
export const BIN = 'tenant-auth-conformance';

/** Runs a command to its end in its own process group, killed as a whole at the time-out. */
export function run(command: string, args: string[], cwd: string, env = cleanEnv()): Promise<Finished> {
  return runInGroup(command, args, cwd, env, STEP_TIMEOUT_MS);
}

/**
 * A command of a package installed in `cwd`, by the file `npx` would run (node_modules/.bin/NAME).
 * `npx` itself is proved once, by the run by target file the README shows a user typing
 * (installed-commands.ts); every other command of a test, and every `npx tenant-auth-conformance`
 * of the docs' blocks (doc-blocks.ts), starts this file itself: npx would only add an npm process,
 * about 0.6 s of CPU each, that resolves the same file.
 */
export function installed(
  cwd: string,
  name: string,
  args: string[],
  env?: NodeJS.ProcessEnv,
): Promise<Finished> {
  return run(join(cwd, 'node_modules', '.bin', name), args, cwd, env);
}

/** `tenant-auth-conformance ARGS`, installed in `cwd`: see `installed`. */
export function kit(cwd: string, args: string[], env?: NodeJS.ProcessEnv): Promise<Finished> {
  return installed(cwd, BIN, args, env);
}

export interface InstalledKit {
  /** The folder of the tarball, the project and any other project a test makes. */
  work: string;
  /** The project the kit is installed in, where it serves from. */
  project: string;
  tarballPath: string;
  /** What npm printed when the project installed the tarball. */
  installOutput: string;
  /** All the served kit has printed so far. */
  serverOutput: () => string;
  ports: { https: number; http: number };
  /** The served kit's keys, by the variable `keys --export` names. */
  keys: Record<string, string>;
}

/**
 * The kit packed, installed and serving for the tests of the enclosing `describe`: made before
 * them, stopped and removed after them. Its tests read it through the function returned.
 */
export function installedKitPerSuite(): () => InstalledKit {
  let kit: InstalledKit | undefined;
  let server: ChildProcess | undefined;
  let work: string | undefined;

  before(async () => {
    work = scratchDirectory('conformance-package-');
    const project = join(work, 'project');
    mkdirSync(project);
    const packed = await packInACopy(work);
    assert.equal(packed.code, 0, packed.stderr);
    const tarball = readdirSync(work).find((name) => name.endsWith('.tgz'));
    assert.ok(tarball, `npm pack left no tarball in ${work}: ${packed.stdout}`);
    const tarballPath = join(work, tarball);
    writeFileSync(join(project, 'package.json'), '{ "name": "certify-our-api", "private": true }\n');
    const install = await run(
      'npm',
      ['install', '--prefer-offline', '--no-audit', '--no-fund', join(work, tarball)],
      project,
    );
    assert.equal(install.code, 0, install.stderr);
    const installOutput = `${install.stdout}\n${install.stderr}`;

    // Its list paged two a page, as the embedded target's: every rule is exercised, the page-cursor one too.
    const started = await startServe(project, ['--page-size', '2']);
    server = started.child;

    const exported = await installed(project, BIN, ['keys', '--export']);
    assert.equal(exported.code, 0, exported.stderr);
    const keys = exportedKeys(exported.stdout, 'REFERENCE_KEY_');
    kit = {
      work,
      project,
      tarballPath,
      installOutput,
      serverOutput: started.output,
      ports: started.ports,
      keys,
    };
  });

  after(async () => {
    // The server writes its data directory while it stops (last uses, the lock): wait for its
    // process group to exit before removing the project, or the removal races its last writes.
    if (server) await stopped(server);
    if (!process.env.KEEP_WORK && work) rmSync(work, { recursive: true, force: true });
  });
  return () => {
    if (!kit) throw new Error('The installed kit is read before its before hook ran.');
    return kit;
  };
}

/** What a copy of the repository to pack leaves out: installed, generated and run-time folders. */
const NOT_PACKED_FROM = new Set([
  'node_modules',
  '.git',
  'reports',
  'tests',
  'test-results',
  'playwright-report',
  '.certs',
  '.reference-data',
  '.registry-data',
]);

/**
 * `npm pack`, as a user runs it, in a copy of the repository (its node_modules linked): the pack's
 * prepack writes the published manifest over package.json until postpack, and the test files
 * running beside this one read the repository's (`npm run fixture-key` needs its scripts).
 * The copy takes the repository's dist/, which `npm run build` made from the sources as they are
 * (checked here, as every test of the compiled kit checks it; `npm run test:unit` builds it when
 * stale), and its prepack's `npm run build` is made a no-op: compiling the same sources again
 * into the copy cost about 18 s of CPU, a third of the pack and install, and proved nothing the
 * repository's build had not. The rest of prepack and postpack (the manifest's trim and restore)
 * runs as a user's pack runs it.
 */
async function packInACopy(destination: string): Promise<Finished> {
  assertDistCurrent();
  const copy = join(destination, 'repository');
  cpSync(REPO_ROOT, copy, {
    recursive: true,
    filter: (source) => !NOT_PACKED_FROM.has(relative(REPO_ROOT, source).split(sep)[0] ?? ''),
  });
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(copy, 'node_modules'), 'dir');
  const manifestPath = join(copy, 'package.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { scripts: Record<string, string> };
  assert.match(manifest.scripts.prepack ?? '', /^npm run build && /, 'prepack builds first');
  manifest.scripts.build = 'node -e ""';
  writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
  return run('npm', ['pack', '--silent', '--pack-destination', destination], copy);
}

/**
 * `tenant-auth-conformance serve` in `cwd` (its node_modules/.bin file: see `installed`) on free
 * ports, without an access log, with `options` added; once it says where it listens. `output` is
 * all it has printed.
 */
export async function startServe(
  cwd: string,
  options: readonly string[],
): Promise<{ child: ChildProcess; ports: { https: number; http: number }; output: () => string }> {
  const args = ['serve', '--port', '0', '--http-port', '0', '--access-log', 'off', ...options];
  const child = spawn(join(cwd, 'node_modules', '.bin', BIN), args, {
    cwd,
    env: cleanEnv(),
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const listening = await new Promise<RegExpExecArray>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start:\n${output}`)), STEP_TIMEOUT_MS);
    const read = (chunk: string): void => {
      output += chunk;
      const match = /Listening: https port (\d+), http port (\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match);
      }
    };
    child.stdout?.setEncoding('utf8').on('data', read);
    child.stderr?.setEncoding('utf8').on('data', read);
    child.on('close', () => reject(new Error(`serve exited:\n${output}`)));
  });
  return { child, ports: { https: Number(listening[1]), http: Number(listening[2]) }, output: () => output };
}

/** The variables `keys --export` printed whose names start with `prefix`, by name. */
export function exportedKeys(stdout: string, prefix: string): Record<string, string> {
  const line = new RegExp(`^export (${prefix}\\w+)=(\\S+)$`, 'gm');
  return Object.fromEntries([...stdout.matchAll(line)].map((match) => [match[1], match[2]])) as Record<
    string,
    string
  >;
}
