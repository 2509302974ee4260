// What a command of the compiled kit loads before it has work for them: undici (the registry's
// client, 110 modules) and ajv's compiler (70) are loaded on first use, not when a command's module
// is imported. Every test that starts the kit, and every user's --help, usage error or `keys`,
// paid about 0.1 to 0.25 s of CPU per process for them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';
import { compiledModule } from '../support/compiled-kit.ts';
import { cleanEnv, KIT_SUBCOMMANDS } from '../support/reference-cli.ts';
import { runInGroup } from '../support/process-group.ts';
import { REPO_ROOT } from '../support/conformance-run.ts';

/** The line the child prints last: every CommonJS module it loaded (undici and ajv are CommonJS). */
const MARK = 'LOADED ';

/**
 * One Node process importing each command's compiled module and running `main(['--help'])`, then
 * `keys` without an argument (it reads the fixtures, whose validator is generated ahead of time).
 */
function script(commands: readonly string[]): string {
  const modules = commands.map((name) => [name, pathToFileURL(compiledModule(`cli/commands/${name}`)).href]);
  return [
    `const { createRequire } = await import('node:module');`,
    `for (const [name, url] of ${JSON.stringify(modules)}) {`,
    `  const code = await (await import(url)).main(['--help']);`,
    `  if (code !== 0) throw new Error(name + ' --help exited ' + code);`,
    `}`,
    `const keys = await import(${JSON.stringify(pathToFileURL(compiledModule('cli/commands/keys')).href)});`,
    `if (keys.main([]) !== 0) throw new Error('keys exited non-zero');`,
    `process.stdout.write('\\n${MARK}' + JSON.stringify(Object.keys(createRequire(import.meta.url).cache)) + '\\n');`,
  ].join('\n');
}

test("no command's --help, nor keys, loads undici or ajv's compiler: they load when first used", async () => {
  const env = cleanEnv();
  delete env.NODE_TEST_CONTEXT;
  const ran = await runInGroup(
    process.execPath,
    ['--input-type=module', '-e', script([...KIT_SUBCOMMANDS, 'registry'])],
    REPO_ROOT,
    env,
    120_000,
  );
  assert.equal(ran.code, 0, ran.stderr);
  const line = ran.stdout.split('\n').find((each) => each.startsWith(MARK));
  assert.ok(line, `the child printed no list of loaded modules:\n${ran.stdout}\n${ran.stderr}`);
  const loaded = JSON.parse(line.slice(MARK.length)) as string[];
  // Something was recorded: the fixtures' generated validator reads ajv's small run-time helpers
  // and ajv-formats' format functions, not the compiler.
  assert.ok(
    loaded.some((file) => /node_modules\/ajv\/dist\/runtime\//.test(file)),
    loaded.join('\n'),
  );
  const heavy =
    /node_modules\/undici\/|node_modules\/ajv\/(?!dist\/runtime\/)|node_modules\/ajv-formats\/(?!dist\/formats\.js$)/;
  assert.deepEqual(
    loaded.filter((file) => heavy.test(file)),
    [],
  );
});
