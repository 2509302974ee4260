// The docs are tests: every `sh`, `ts`, `json` and `jsonc` block of README.md and docs/ says in its
// info string that a test runs it (`doctest`) or why none can (`not-runnable: REASON`), as
// tests/docs/fenced-blocks.ts describes. This file checks the marks (a new block without one fails,
// naming its file and line) and runs the JSON blocks against their schema; the shell and
// TypeScript blocks run from the packed tarball in tests/packaging/doc-blocks.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../support/conformance-run.ts';
import { scratchDirectory } from '../support/scratch.ts';
import { readTargetFile } from '../../conformance/deployment/target.ts';
import { blockMark, documentationBlocks, fencedBlocks, unmarkedBlocks } from './fenced-blocks.ts';

const blocks = documentationBlocks(REPO_ROOT);

test('every sh, ts, json and jsonc block of README.md and docs/ is run by a test or says why not', () => {
  assert.deepEqual(unmarkedBlocks(blocks), []);
  // The mechanism is not vacuous: blocks of each kind are run.
  const run = blocks.filter((block) => blockMark(block).kind === 'doctest');
  for (const language of ['sh', 'ts', 'jsonc'])
    assert.ok(
      run.some((block) => block.language === language),
      `a ${language} block is run`,
    );
});

test('a new block without a mark fails, naming its page and line', () => {
  const page = [
    '# A page',
    '',
    '1. A step:',
    '',
    '   ```sh',
    '   npx tenant-auth-conformance rules',
    '   ```',
    '',
    '```ts doctest',
    "import { RULES } from 'tenant-auth-conformance';",
    '```',
    '',
    '```sh not-runnable: why',
    '```',
    '',
    '```sh doctest exit=2',
    '```',
    '',
    '```sh doctest exit=3 expect="Cannot trust" in=served',
    '```',
    '',
    '```jsonc doctest',
    '{}',
    '```',
    '',
    '```md',
    'not checked',
    '```',
  ].join('\n');
  const found = fencedBlocks('docs/new-page.md', page);
  assert.equal(found.length, 7);
  assert.equal(found[0]?.text, 'npx tenant-auth-conformance rules\n');
  assert.deepEqual(unmarkedBlocks(found), [
    'docs/new-page.md:5: this ```sh block is neither run nor marked: write ```sh doctest expect="…" (a test runs it) or ```sh not-runnable: REASON',
    'docs/new-page.md:13: not-runnable: needs a reason (what it needs that a test has not)',
    'docs/new-page.md:16: doctest: a shell block names the line it prints (expect="TEXT")',
    'docs/new-page.md:22: doctest: a JSON block names the schema it follows (schema=target)',
  ]);
  assert.deepEqual(blockMark(found[4]!), {
    kind: 'doctest',
    exit: 3,
    expect: ['Cannot trust'],
    in: 'served',
  });
});

test('each JSON block run by a test is a valid document of the schema it names', () => {
  const json = blocks.filter(
    (block) =>
      (block.language === 'json' || block.language === 'jsonc') && blockMark(block).kind === 'doctest',
  );
  assert.ok(json.length > 0);
  const folder = scratchDirectory('doc-json-');
  for (const block of json) {
    const mark = blockMark(block);
    assert.ok(
      mark.kind === 'doctest' && mark.schema === 'target',
      `${block.file}:${block.line}: schema=target`,
    );
    const file = join(folder, `block-${block.line}.jsonc`);
    writeFileSync(file, block.text);
    assert.doesNotThrow(() => readTargetFile(file), `${block.file}:${block.line}`);
  }
});
