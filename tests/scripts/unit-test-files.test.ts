// `npm run test:unit` runs every test file exactly once, and the files that share one process
// (tests/shared-process.test.ts) leave the process as they found it, so that none can change
// another's outcome by running first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import {
  allTestFiles,
  LONGEST_FILES,
  SHARED_PROCESS_FILE,
  sharedProcessMembers,
  unitTestFiles,
} from '../../scripts/unit-test-files.ts';
import { REPO_ROOT } from '../support/conformance-run.ts';
import { relativeImports } from '../support/layers.ts';

test('every test file runs once: on its own, or imported by the shared process', () => {
  const listed = unitTestFiles();
  const members = sharedProcessMembers();
  assert.ok(members.length > 0, 'the shared process imports test files');
  assert.deepEqual(listed.slice(0, 3), [...LONGEST_FILES, SHARED_PROCESS_FILE]);
  for (const file of LONGEST_FILES) assert.ok(allTestFiles().includes(file), `${file} is a test file`);
  assert.deepEqual([...listed, ...members].sort(), allTestFiles(), 'each file exactly once');
  // Counted apart from the list's own reading: every quoted test file of the shared process.
  const quoted = readFileSync(join(REPO_ROOT, SHARED_PROCESS_FILE), 'utf8').match(/'\.\/[^']+\.test\.ts'/g);
  assert.equal(quoted?.length, members.length);
  assert.ok(
    allTestFiles().some((file) => file.startsWith('tests/reference-server/api/')),
    'subfolders are read',
  );
});

/** What a file of the shared process must not do: each changes the process for the files after it. */
const PROCESS_WIDE = [
  {
    what: 'writes process.env',
    pattern:
      /process\.env(\.\w+|\[[^\]]+\])\s*(\?\?|\|\||&&|\+|-)?=(?!=)|process\.env\s*=(?!=)|delete process\.env|Object\.assign\(process\.env|Reflect\.\w+\(process\.env/,
  },
  { what: 'changes the working directory or the umask', pattern: /process\.(chdir|umask)\(/ },
  { what: 'mocks', pattern: /\bmock\.(fn|method|getter|setter|property|module|timers)\b|\bt\.mock\b/ },
  {
    what: 'installs a process handler',
    pattern:
      /process\.(on|once|addListener|prependListener|prependOnceListener)\(|setUncaughtExceptionCaptureCallback/,
  },
  { what: 'exits or sets the exit code', pattern: /process\.exit(\(|Code\s*=)/ },
  {
    what: 'changes a global setting',
    pattern: /setGlobalDispatcher|setDefaultResultOrder|Error\.stackTraceLimit\s*=|globalAgent\.\w+\s*=/,
  },
  { what: 'has a hook outside a describe', pattern: /^(before|after|beforeEach|afterEach)\(/m },
  {
    what: "sends through the suite's own client",
    pattern: /^import (?!type )[^;]*conformance\/requests\/(send|raw-client|api-client)\.ts'/m,
  },
];

/**
 * A helper made to be shared by every file of a process, and what it does process-wide: the one
 * exit handler of scratch.ts removes the directories of all the files, after the last, and only
 * when every test passed; it changes nothing any file sees while it runs.
 */
const SHARED_BY_DESIGN = new Map([['tests/support/scratch.ts', 'installs a process handler']]);

/** `file` and the helpers of tests/ it imports, directly or through one another. */
function withTestHelpers(file: string, seen = new Set<string>()): string[] {
  if (seen.has(file)) return [];
  seen.add(file);
  const source = readFileSync(join(REPO_ROOT, file), 'utf8');
  const helpers = relativeImports(source)
    .map((path) => relative(REPO_ROOT, join(REPO_ROOT, dirname(file), path)))
    .filter((path) => path.startsWith('tests/') && existsSync(join(REPO_ROOT, path)));
  return [file, ...helpers.flatMap((helper) => withTestHelpers(helper, seen))];
}

test('the files of the shared process, and the helpers they import, change nothing process-wide', () => {
  const files = [...new Set(sharedProcessMembers().flatMap((member) => withTestHelpers(member)))];
  assert.ok(files.includes('tests/support/reference-client.ts'), 'the helpers are read too');
  const offences = files.flatMap((file) => {
    const source = readFileSync(join(REPO_ROOT, file), 'utf8');
    return PROCESS_WIDE.filter(
      ({ pattern, what }) => pattern.test(source) && SHARED_BY_DESIGN.get(file) !== what,
    ).map(({ what }) => `${file} ${what}`);
  });
  assert.deepEqual(
    offences,
    [],
    `run these in a process of their own: remove them from ${SHARED_PROCESS_FILE}`,
  );
});

test('the check of process-wide changes catches each kind, and not a read', () => {
  const samples = [
    ["process.env.CONFORMANCE_PROFILE = 'strict';", "process.env['X'] ??= '1';", 'process.env = {};'],
    ['process.chdir(work);', 'process.umask(0);'],
    ["mock.method(console, 'log');", 't.mock.fn();'],
    ["process.on('exit', stop);", "process.addListener('warning', log);"],
    ['process.exitCode = 1;', 'process.exit(0);'],
    ["dns.setDefaultResultOrder('ipv4first');", 'Error.stackTraceLimit = 100;'],
    ['before(async () => {});', 'afterEach(() => {});'],
    ["import { RawClient } from '../../conformance/requests/raw-client.ts';"],
  ];
  assert.equal(samples.length, PROCESS_WIDE.length);
  for (const [index, kind] of samples.entries())
    for (const sample of kind) assert.ok(PROCESS_WIDE[index]?.pattern.test(sample), `${sample} is caught`);
  const allowed = [
    "if (process.env.UPDATE === '1') {}",
    '  before(async () => {});',
    'const keys = mock.keys;',
    "import type { Api } from '../../conformance/requests/api-client.ts';",
  ];
  for (const sample of allowed)
    assert.ok(!PROCESS_WIDE.some(({ pattern }) => pattern.test(sample)), `${sample} is allowed`);
});
