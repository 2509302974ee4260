// The docs are tests: every `sh`, `ts`, `json` and `jsonc` block of README.md and docs/ says in its
// info string that a test runs it (`doctest`) or why none can (`not-runnable: REASON`), as
// tests/docs/fenced-blocks.ts describes. This file checks the marks (a new block without one fails,
// naming its file and line) and runs the JSON blocks against their schema; the shell and
// TypeScript blocks run from the packed tarball in tests/packaging/doc-blocks.ts. A block that is
// `not-runnable: an excerpt of examples/FILE` (a file a test runs under its own runner) is checked
// to be one: its lines are the file's, in order.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
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

/** The lines of `block` not found in `file`'s, in order (spaces at either end aside): none for an excerpt. */
export function linesNotInOrder(block: string, file: string): string[] {
  const lines = file.split('\n').map((line) => line.trim());
  let from = 0;
  const missing: string[] = [];
  for (const line of block.split('\n').map((each) => each.trim())) {
    if (line === '') continue;
    const at = lines.indexOf(line, from);
    if (at === -1) missing.push(line);
    else from = at + 1;
  }
  return missing;
}

test("each block marked as an excerpt of an example is one: its lines are the file's, in order", () => {
  const excerpts = blocks.flatMap((block) => {
    const mark = blockMark(block);
    const example =
      mark.kind === 'not-runnable' ? /^an excerpt of (examples\/[\w.-]+\.ts)\b/.exec(mark.reason) : null;
    return example?.[1] ? [{ block, example: example[1] }] : [];
  });
  // The three runners' examples at least (Playwright Test, Vitest, Jest).
  assert.ok(excerpts.length >= 3, `${excerpts.length} excerpts`);
  for (const { block, example } of excerpts)
    assert.deepEqual(
      linesNotInOrder(block.text, readFileSync(join(REPO_ROOT, example), 'utf8')),
      [],
      `${block.file}:${block.line} is not an excerpt of ${example}`,
    );
  // The check is not vacuous: a changed line, or two lines swapped, is no excerpt.
  assert.deepEqual(linesNotInOrder('a\n  b\n', 'a\nb\nc\n'), []);
  assert.deepEqual(linesNotInOrder('a\nx\n', 'a\nb\n'), ['x']);
  assert.deepEqual(linesNotInOrder('b\na\n', 'a\nb\n'), ['a']);
});

test('a server in the foreground is marked by the line it prints (until=), a registry block by in=registry', () => {
  const page = [
    '```sh doctest until="Registry at"',
    'npx tenant-auth-conformance registry serve',
    '```',
    '```sh doctest in=registry exit=1 expect="no deployment"',
    '```',
    '```sh doctest in=elsewhere expect="x"',
    '```',
  ].join('\n');
  const [serve, ask, elsewhere] = fencedBlocks('docs/page.md', page);
  assert.deepEqual(blockMark(serve!), {
    kind: 'doctest',
    exit: 0,
    expect: [],
    in: 'empty',
    until: 'Registry at',
  });
  assert.deepEqual(blockMark(ask!), { kind: 'doctest', exit: 1, expect: ['no deployment'], in: 'registry' });
  assert.equal(blockMark(elsewhere!).kind, 'malformed');
});
