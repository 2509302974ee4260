// The fenced code blocks of the documentation (README.md and every page under docs/), read with
// their info strings: the docs are tests, so each `sh`, `ts`, `json` or `jsonc` block says in its
// info string either that a test runs it or why none can. The convention (CONTRIBUTING.md):
//
//   ```sh doctest                          run by tests/packaging/doc-blocks.ts: exit 0
//   ```sh doctest exit=3 expect="TEXT"     exit 3, and TEXT on a line of its output
//   ```sh doctest in=served                in the folder the shared reference server serves from
//   ```sh doctest in=registry              in the folder of a registry started as docs/registry.md
//                                          says (keygen, publisher acme, serve; its CA in .certs/)
//   ```sh doctest until="TEXT"             a server in the foreground: stopped once TEXT is printed
//   ```jsonc doctest schema=target         parsed (JSONC) and valid against schemas/target.schema.json
//   ```sh not-runnable: REASON             no test runs it; REASON says why (a real deployment…)
//
// A renderer reads only the first word (the language), so the rest never shows on a page.
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

/** The languages whose blocks must be run or marked: what a reader copies into a shell or a file. */
export const CHECKED_LANGUAGES = new Set(['sh', 'ts', 'json', 'jsonc']);

export interface FencedBlock {
  /** The page, relative to the root, and the line of the opening fence (1-based): `file:line`. */
  file: string;
  line: number;
  language: string;
  /** The info string after the language. */
  info: string;
  /** The block's text, the list item's indentation removed. */
  text: string;
}

export type BlockMark =
  | {
      kind: 'doctest';
      exit: number;
      expect: string[];
      in: 'empty' | 'served' | 'registry';
      schema?: string;
      /** The block runs a server in the foreground: it passes once this is printed, then is stopped. */
      until?: string;
    }
  | { kind: 'not-runnable'; reason: string }
  | { kind: 'unmarked' }
  | { kind: 'malformed'; problem: string };

/** README.md and every Markdown page under docs/, relative to `root`, sorted. */
export function documentationPages(root: string): string[] {
  const pages = readdirSync(join(root, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.md'))
    .map((path) =>
      relative(root, join(root, 'docs', path))
        .split('\\')
        .join('/'),
    );
  return ['README.md', ...pages.sort()];
}

/** Every fenced block of `markdown` (``` or ~~~, indented or not), named `file:line`. */
export function fencedBlocks(file: string, markdown: string): FencedBlock[] {
  const lines = markdown.split('\n');
  const blocks: FencedBlock[] = [];
  for (let index = 0; index < lines.length; index++) {
    const opening = /^([ \t]*)(`{3,}|~{3,})\s*([^\s`]*)\s*(.*)$/.exec(lines[index] ?? '');
    if (!opening) continue;
    const [, indent = '', fence = '', language = '', info = ''] = opening;
    const body: string[] = [];
    let end = index + 1;
    while (
      end < lines.length &&
      !new RegExp(`^[ \\t]*${fence[0]}{${fence.length},}\\s*$`).test(lines[end] ?? '')
    )
      body.push((lines[end++] ?? '').replace(new RegExp(`^[ \\t]{0,${indent.length}}`), ''));
    blocks.push({ file, line: index + 1, language, info: info.trim(), text: `${body.join('\n')}\n` });
    index = end;
  }
  return blocks;
}

/** The blocks of every documentation page under `root`. */
export function documentationBlocks(root: string): FencedBlock[] {
  return documentationPages(root).flatMap((page) =>
    fencedBlocks(page, readFileSync(join(root, page), 'utf8')),
  );
}

/** What a block's info string says: run by a test (and how), not runnable (and why), or nothing. */
export function blockMark(block: FencedBlock): BlockMark {
  const { info } = block;
  if (info === '') return { kind: 'unmarked' };
  const notRunnable = /^not-runnable:\s*(.*)$/.exec(info);
  if (notRunnable) {
    const reason = notRunnable[1]?.trim() ?? '';
    return reason.length >= 10
      ? { kind: 'not-runnable', reason }
      : { kind: 'malformed', problem: 'not-runnable: needs a reason (what it needs that a test has not)' };
  }
  if (!/^doctest(\s|$)/.test(info)) return { kind: 'unmarked' };
  const mark: BlockMark & { kind: 'doctest' } = { kind: 'doctest', exit: 0, expect: [], in: 'empty' };
  for (const [, name = '', quoted, bare] of info
    .slice('doctest'.length)
    .matchAll(/\s+([a-z]+)=(?:"([^"]*)"|(\S+))/g)) {
    const value = quoted ?? bare ?? '';
    if (name === 'exit' && /^\d+$/.test(value)) mark.exit = Number(value);
    else if (name === 'expect') mark.expect.push(value);
    else if (name === 'in' && (value === 'empty' || value === 'served' || value === 'registry'))
      mark.in = value;
    else if (name === 'schema') mark.schema = value;
    else if (name === 'until' && value !== '') mark.until = value;
    else
      return {
        kind: 'malformed',
        problem: `doctest: ${name}=${value} is not one of exit=N, expect="TEXT", in=empty|served|registry, schema=NAME, until="TEXT"`,
      };
  }
  const rest = info
    .slice('doctest'.length)
    .replace(/\s+([a-z]+)=(?:"([^"]*)"|(\S+))/g, '')
    .trim();
  if (rest !== '')
    return {
      kind: 'malformed',
      problem: `doctest: "${rest}" is not an attribute (exit=N, expect="TEXT", in=…, schema=…)`,
    };
  if (block.language === 'sh' && mark.expect.length === 0 && mark.until === undefined)
    return { kind: 'malformed', problem: 'doctest: a shell block names the line it prints (expect="TEXT")' };
  if ((block.language === 'json' || block.language === 'jsonc') && mark.schema === undefined)
    return {
      kind: 'malformed',
      problem: 'doctest: a JSON block names the schema it follows (schema=target)',
    };
  return mark;
}

/** One message per block of a checked language that is neither run nor marked, naming file:line. */
export function unmarkedBlocks(blocks: readonly FencedBlock[]): string[] {
  return blocks
    .filter((block) => CHECKED_LANGUAGES.has(block.language))
    .flatMap((block) => {
      const mark = blockMark(block);
      const where = `${block.file}:${block.line}`;
      if (mark.kind === 'unmarked')
        return [
          `${where}: this \`\`\`${block.language} block is neither run nor marked: write \`\`\`${block.language} doctest expect="…" (a test runs it) or \`\`\`${block.language} not-runnable: REASON`,
        ];
      if (mark.kind === 'malformed') return [`${where}: ${mark.problem}`];
      return [];
    });
}
