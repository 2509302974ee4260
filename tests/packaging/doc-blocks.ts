// The documentation's blocks run as a reader would run them, from the packed tarball: each `sh
// doctest` block of README.md and docs/ (tests/docs/fenced-blocks.ts reads the marks) in an empty
// folder with the tarball installed (`in=empty`, the default), in the folder the shared reference
// server serves from (`in=served`) or in the folder of a registry started by the docs' own block
// that starts one (`in=registry`: the block marked `until=` that runs `registry serve`, run once and
// kept serving for the suite), with `bash -e -o pipefail`: its exit code and the line it names
// (`expect="…"`) are checked; a block that runs a server in the foreground (`until="…"`) passes
// once it prints that line. Each `ts doctest` block compiles (strict, the tsconfig the README
// states) in such a folder and runs. What a reader's copy differs in is substituted by SUBSTITUTIONS
// below and nothing else.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from '../support/conformance-run.ts';
import { cleanEnv } from '../support/reference-cli.ts';
import { killGroup, stopped, type Finished } from '../support/process-group.ts';
import { blockMark, documentationBlocks, type FencedBlock } from '../docs/fenced-blocks.ts';
import { run, type InstalledKit } from './installed-kit.ts';
import { assertProjectChecked, typescriptDocBlocks, type SuiteTypeChecks } from './type-checks.ts';

/** A block runs for at most this long; a server it starts in the background is stopped at its end. */
const BLOCK_TIMEOUT_MS = 120_000;

interface Place {
  https: number;
  http: number;
  tarball: string;
}

/**
 * Every difference between a block as printed and as run here. The kit's default ports become the
 * shared reference server's (`in=served`) or free ones (a server the block starts itself, which
 * also reads them from REFERENCE_PORT and REFERENCE_HTTP_PORT: runScript); the
 * package's name, until it is published, the packed tarball (as the README tells a reader); a
 * clone's npm scripts, the installed command they are thin calls of (README: "Two commands"); and
 * `npx tenant-auth-conformance`, the installed file npx runs.
 */
export function substitute(text: string, place: Place): string {
  const substitutions: [RegExp, string][] = [
    [/\b8443\b/g, String(place.https)],
    [/\b8080\b/g, String(place.http)],
    [/(npm install --save-dev) tenant-auth-conformance\b/g, `$1 ${place.tarball}`],
    [/npm run conformance( --)?/g, 'npx tenant-auth-conformance run'],
    [/npm run --silent fixture-key( --)?/g, 'npx tenant-auth-conformance keys'],
    [/npm start( --)?/g, 'npx tenant-auth-conformance serve'],
    // A registry the block starts listens on the block's port, as the text's 8443 became.
    [/(registry serve)(?![^\n]*--port)/g, `$1 --port ${place.https}`],
    // The file npx runs for the installed package: npx running it is proved once (the run by
    // target file, installed-commands.ts); here it would add an npm process per command, about
    // 0.6 s of CPU each, to every block.
    [/\bnpx tenant-auth-conformance\b/g, 'node_modules/.bin/tenant-auth-conformance'],
  ];
  return substitutions.reduce((result, [pattern, value]) => result.replace(pattern, value), text);
}

/** Two ports free now on the loopback interface. */
async function freePorts(): Promise<{ https: number; http: number }> {
  const one = (): Promise<number> =>
    new Promise((resolve, reject) => {
      const server = createServer();
      server.on('error', reject);
      server.listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
  return { https: await one(), http: await one() };
}

/**
 * `bash -e -o pipefail` over `script` in `cwd`, in its own process group. The reference server a
 * block starts takes the block's ports for its defaults, as the text's 8443 and 8080 became (the
 * variables `serve --help` names).
 */
function spawnBlock(script: string, cwd: string, ports: { https: number; http: number }) {
  return spawn('bash', ['-e', '-o', 'pipefail', '-c', script], {
    cwd,
    env: cleanEnv({ REFERENCE_PORT: String(ports.https), REFERENCE_HTTP_PORT: String(ports.http) }),
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** The block's script (spawnBlock) run to its end; whatever it left running is stopped when it exits. */
function runScript(script: string, cwd: string, ports: { https: number; http: number }): Promise<Finished> {
  const child = spawnBlock(script, cwd, ports);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const timer = setTimeout(() => killGroup(child), BLOCK_TIMEOUT_MS);
  return new Promise((done) => {
    // A server the block started in the background holds the pipes open: the shell's exit ends the block.
    child.on('exit', (code) => {
      clearTimeout(timer);
      killGroup(child);
      setTimeout(() => done({ code, stdout, stderr }), 200);
    });
  });
}

/** A block's server running in the foreground, and whether it printed its `until` line in time. */
interface Serving {
  child: ChildProcess;
  cwd: string;
  ports: { https: number; http: number };
  seen: boolean;
  printed: () => string;
}

/**
 * `bash -e -o pipefail` over `script` in `cwd`, left running once it prints `until` (seen), or
 * ended: by its own exit or at the time-out (not seen). The caller stops it (`stopped`).
 */
function serveUntil(
  script: string,
  cwd: string,
  ports: { https: number; http: number },
  until: string,
): Promise<Serving> {
  const child = spawnBlock(script, cwd, ports);
  let output = '';
  const serving = (seen: boolean): Serving => ({ child, cwd, ports, seen, printed: () => output });
  return new Promise((done) => {
    const timer = setTimeout(() => done(serving(false)), BLOCK_TIMEOUT_MS);
    const read = (chunk: string): void => {
      output += chunk;
      if (output.includes(until)) {
        clearTimeout(timer);
        done(serving(true));
      }
    };
    child.stdout.setEncoding('utf8').on('data', read);
    child.stderr.setEncoding('utf8').on('data', read);
    child.on('exit', () => {
      clearTimeout(timer);
      done(serving(false));
    });
  });
}

/** An empty folder with the tarball installed: the installed project's node_modules, linked. */
export function emptyProject(kit: InstalledKit): string {
  const folder = mkdtempSync(join(kit.work, 'doc-block-'));
  writeFileSync(join(folder, 'package.json'), '{ "name": "a-reader", "private": true, "type": "module" }\n');
  symlinkSync(join(kit.project, 'node_modules'), join(folder, 'node_modules'), 'dir');
  return folder;
}

/** The team project's tsx, a reader's own tool (an empty folder has only the package installed). */
export function tsxLoader(team: string): string {
  return pathToFileURL(join(team, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
}

function describeBlock(block: FencedBlock): string {
  return `${block.file}:${block.line}`;
}

/** A test per `sh doctest` and `ts doctest` block of the docs, run from the installed kit. */
export function docBlockTests(
  installedKit: () => InstalledKit,
  teamFolder: () => string,
  typeChecks: () => Promise<SuiteTypeChecks>,
): void {
  const blocks = documentationBlocks(REPO_ROOT);
  // The registry of the `in=registry` blocks: the docs' block that starts one, run once, kept serving.
  const registryStart = blocks.find((each) => {
    const mark = blockMark(each);
    return mark.kind === 'doctest' && mark.until !== undefined && /registry serve/.test(each.text);
  });
  let registry: Promise<Serving> | undefined;
  const startedRegistry = (kit: InstalledKit): Promise<Serving> => {
    const mark = registryStart && blockMark(registryStart);
    if (!registryStart || mark?.kind !== 'doctest' || mark.until === undefined)
      throw new Error(
        'No block of the docs starts a registry (```sh doctest until="…" with `registry serve`).',
      );
    const until = mark.until;
    registry ??= freePorts().then((ports) =>
      serveUntil(
        substitute(registryStart.text, { ...ports, tarball: kit.tarballPath }),
        emptyProject(kit),
        ports,
        until,
      ),
    );
    return registry;
  };
  after(async () => {
    if (registry) await stopped((await registry).child);
  });

  for (const block of blocks.filter((each) => each.language === 'sh')) {
    const mark = blockMark(block);
    if (mark.kind !== 'doctest') continue;
    const title = mark.until === undefined ? `exit ${mark.exit}` : `until it prints "${mark.until}"`;
    test(`the docs' block ${describeBlock(block)} runs as written (${title})`, async () => {
      const kit = installedKit();
      if (mark.until !== undefined) {
        const serving =
          block === registryStart
            ? await startedRegistry(kit)
            : await freePorts().then((ports) =>
                serveUntil(
                  substitute(block.text, { ...ports, tarball: kit.tarballPath }),
                  emptyProject(kit),
                  ports,
                  mark.until ?? '',
                ),
              );
        // The registry keeps serving for the `in=registry` blocks; any other server stops here.
        if (block !== registryStart) await stopped(serving.child);
        const where = `${describeBlock(block)} in ${serving.cwd}:\n--- printed:\n${serving.printed()}`;
        assert.ok(serving.seen, `"${mark.until}" not printed by ${where}`);
        for (const expected of mark.expect)
          assert.ok(serving.printed().includes(expected), `"${expected}" not printed by ${where}`);
        return;
      }
      const place = mark.in === 'registry' ? await startedRegistry(kit) : undefined;
      if (place) assert.ok(place.seen, `the registry did not start:\n${place.printed()}`);
      const served = mark.in === 'served';
      const ports = place?.ports ?? (served ? kit.ports : await freePorts());
      const cwd = place?.cwd ?? (served ? kit.project : emptyProject(kit));
      const script = substitute(block.text, { ...ports, tarball: kit.tarballPath });
      const result = await runScript(script, cwd, ports);
      const output = `${result.stdout}\n${result.stderr}`;
      const where = `${describeBlock(block)} in ${cwd}:\n${script}\n--- printed:\n${output}`;
      assert.equal(result.code, mark.exit, where);
      for (const expected of mark.expect)
        assert.ok(output.includes(expected), `"${expected}" not printed by ${where}`);
    });
  }

  const typescript = typescriptDocBlocks();
  test("the docs' TypeScript blocks, each entry point and the team config example compile (strict, the README's tsconfig); the blocks run", async () => {
    const team = teamFolder();
    // Built with the team's checks, each project judged by its own part of the output (type-checks.ts).
    const { checked, docs } = await typeChecks();
    for (const project of docs.projects) assertProjectChecked(checked, project);
    assert.equal(checked.code, 0, checked.output);
    const { folder, names } = docs;
    const env = cleanEnv();
    delete env.NODE_TEST_CONTEXT;
    for (const [index, block] of typescript.entries()) {
      if (block.text.includes('export default')) continue; // a config: compiled above, run by Playwright
      const ran = await run(process.execPath, ['--import', tsxLoader(team), names[index]!], folder, env);
      assert.equal(ran.code, 0, `${describeBlock(block)}:\n${ran.stdout}\n${ran.stderr}`);
    }
  });
}
