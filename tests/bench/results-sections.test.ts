// `npm run bench -- --startup-only` and `--http2-only` rewrite one section of results.md and keep
// the rest: a section there is replaced in place; one not there yet goes after the section named,
// or at the end when that one is missing too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { replaceSection } from '../../bench/startup-section.ts';

const RESULTS = ['# Results', '', '## A', 'a', '', '## B', 'b', ''].join('\n');

test('a section already there is replaced in place, the others kept', () => {
  assert.equal(replaceSection(RESULTS, '## A', '## A\nnew a\n'), '# Results\n\n## A\nnew a\n\n## B\nb\n');
});

test('a new section goes right after the one named, before the next', () => {
  assert.equal(
    replaceSection(RESULTS, '## New', '## New\nn\n', '## A'),
    '# Results\n\n## A\na\n\n## New\nn\n\n## B\nb\n',
  );
});

test('a new section goes at the end when the one named is missing or last', () => {
  assert.equal(
    replaceSection(RESULTS, '## New', '## New\nn', '## Nowhere'),
    `${RESULTS.trimEnd()}\n\n## New\nn\n`,
  );
  assert.equal(replaceSection(RESULTS, '## New', '## New\nn', '## B'), `${RESULTS.trimEnd()}\n\n## New\nn\n`);
});
