// Every relative link of the README, CONTRIBUTING and the pages under docs/ (and the folders'
// own READMEs) leads to a file of the project and, where it names one, to a heading of that page.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { anchorsOf, brokenLinks, headingAnchor } from '../../scripts/doc-links.ts';
import { scratchDirectory } from '../support/scratch.ts';

const ROOT = join(import.meta.dirname, '..', '..');

/** The project's own Markdown pages, as git lists them (tracked or new, never ignored). */
function projectPages(): string[] {
  const listed = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.md'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return listed.split('\n').filter((page) => page !== '' && !page.startsWith('tests/packaging/consumer/'));
}

test('every relative link of the project’s pages resolves, anchors included', () => {
  const pages = projectPages();
  assert.ok(pages.includes('README.md') && pages.some((page) => page.startsWith('docs/')));
  assert.deepEqual(brokenLinks(ROOT, pages), []);
});

test('the link check finds a missing file, a missing anchor and a link outside the project', () => {
  const dir = scratchDirectory('doc-links-');
  try {
    writeFileSync(join(dir, 'other.md'), '# Other page\n\n## Options, exit code and the gate\n');
    writeFileSync(
      join(dir, 'page.md'),
      [
        '# Page',
        '[fine](other.md#options-exit-code-and-the-gate) [self](#page) [web](https://example.com/x.md)',
        '[gone](missing.md) [no anchor](other.md#nowhere) [out](../../etc/passwd)',
        '```sh',
        '[in code](missing-too.md)',
        '```',
        '1. a list item',
        '   ```md',
        '   [indented code](missing-four.md)',
        '   ```',
        'and `[in a span](missing-three.md)`',
      ].join('\n'),
    );
    assert.deepEqual(
      brokenLinks(dir, ['page.md']).map(({ link, why }) => `${link}: ${why}`),
      [
        'missing.md: no such file',
        'other.md#nowhere: no heading makes #nowhere',
        '../../etc/passwd: points outside the project',
      ],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('headings make GitHub’s anchors', () => {
  assert.equal(
    headingAnchor('Key management (Settings → API → API Keys)'),
    'key-management-settings--api--api-keys',
  );
  assert.equal(headingAnchor('HTTP/2'), 'http2');
  assert.deepEqual(
    [...anchorsOf('# A\n## A\n```\n# not a heading\n```\n## `code` B\n')],
    ['a', 'a-1', 'code-b'],
  );
});

test('the README is a first page, read in minutes: at most 250 lines, the manual under docs/', () => {
  const lines = readFileSync(join(ROOT, 'README.md'), 'utf8').split('\n').length;
  assert.ok(lines <= 250, `README.md has ${lines} lines: move the detail to a page of docs/`);
});
