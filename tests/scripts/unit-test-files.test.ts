// `npm run test:unit` runs every test file exactly once, and the files that share one process
// (tests/in-process.test.ts) leave the process as they found it, so that none can change another's
// outcome by running first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  allTestFiles,
  CAMPAIGN_FILE,
  SHARED_PROCESS_FILE,
  sharedProcessMembers,
  unitTestFiles,
} from '../../scripts/unit-test-files.ts';
import { REPO_ROOT } from '../support/conformance-run.ts';

test('every test file runs once: on its own, or imported by the shared process', () => {
  const listed = unitTestFiles();
  const members = sharedProcessMembers();
  assert.ok(members.length > 0, 'the shared process imports test files');
  assert.deepEqual(listed.slice(0, 2), [CAMPAIGN_FILE, SHARED_PROCESS_FILE]);
  assert.deepEqual([...listed, ...members].sort(), allTestFiles(), 'each file exactly once');
});

/** What a file of the shared process must not do: each changes the process for the files after it. */
const PROCESS_WIDE = [
  {
    what: 'writes process.env',
    pattern: /process\.env(\.\w+|\[[^\]]+\])\s*=(?!=)|delete process\.env|Object\.assign\(process\.env/,
  },
  { what: 'changes the working directory', pattern: /process\.chdir/ },
  { what: 'mocks', pattern: /\bmock\.|\bt\.mock\b/ },
  { what: 'installs a process handler', pattern: /process\.(on|once|prependListener)\(/ },
  { what: 'sets the exit code', pattern: /process\.exitCode\s*=/ },
];

test('the files of the shared process change nothing process-wide', () => {
  const offences = sharedProcessMembers().flatMap((file) => {
    const source = readFileSync(join(REPO_ROOT, file), 'utf8');
    return PROCESS_WIDE.filter(({ pattern }) => pattern.test(source)).map(({ what }) => `${file} ${what}`);
  });
  assert.deepEqual(
    offences,
    [],
    `run these in a process of their own: remove them from ${SHARED_PROCESS_FILE}`,
  );
});

test('the check of process-wide changes catches each kind', () => {
  const samples = [
    "process.env.CONFORMANCE_PROFILE = 'strict';",
    'process.chdir(work);',
    "mock.method(console, 'log');",
    "process.on('exit', stop);",
    'process.exitCode = 1;',
  ];
  for (const [index, sample] of samples.entries())
    assert.ok(PROCESS_WIDE[index]?.pattern.test(sample), `${sample} is caught`);
  assert.ok(
    !PROCESS_WIDE.some(({ pattern }) => pattern.test("if (process.env.UPDATE === '1') {}")),
    'a read is allowed',
  );
});
