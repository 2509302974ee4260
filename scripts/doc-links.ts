// The relative links of the project's Markdown pages, and those that lead nowhere: a file that is
// not there, or an anchor that no heading of the page it names makes. External links (a scheme:
// https:, mailto:) are not followed: nothing here reaches the network.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

export interface BrokenLink {
  /** The page, relative to the root. */
  page: string;
  link: string;
  why: string;
}

/** A fenced code block, indented (in a list item) or not. */
const FENCED_BLOCK = /^[ \t]*(```|~~~)[^\n]*\n[\s\S]*?^[ \t]*\1[^\n]*$/gm;

/** `[text](target)` and `![alt](target)`, with an optional title, outside code spans. */
const LINK = /!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g;

/** The text of a Markdown page without its fenced code blocks and code spans, which hold no links. */
function prose(markdown: string): string {
  return markdown.replace(FENCED_BLOCK, '').replace(/`[^`\n]*`/g, '');
}

/** The anchor GitHub gives a heading: lower case, punctuation dropped, each space a hyphen. */
export function headingAnchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}\- _]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a page's headings make, a repeated one numbered as GitHub numbers it (`-1`, `-2`). */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const withoutCode = markdown.replace(FENCED_BLOCK, '');
  for (const match of withoutCode.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = headingAnchor((match[1] ?? '').replace(/`/g, ''));
    const count = seen.get(base) ?? 0;
    anchors.add(count === 0 ? base : `${base}-${count}`);
    seen.set(base, count + 1);
  }
  return anchors;
}

/** The links of `pages` (paths relative to `root`) that lead nowhere. */
export function brokenLinks(root: string, pages: readonly string[]): BrokenLink[] {
  const broken: BrokenLink[] = [];
  for (const page of pages) {
    const file = join(root, page);
    const markdown = readFileSync(file, 'utf8');
    for (const match of prose(markdown).matchAll(LINK)) {
      const link = match[1] ?? '';
      if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue;
      const [path = '', fragment] = link.split('#', 2);
      const target = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
      if (relative(root, target).startsWith('..')) {
        broken.push({ page, link, why: 'points outside the project' });
      } else if (!existsSync(target)) {
        broken.push({ page, link, why: 'no such file' });
      } else if (fragment !== undefined && fragment !== '') {
        if (!target.endsWith('.md') || statSync(target).isDirectory()) continue;
        if (!anchorsOf(readFileSync(target, 'utf8')).has(fragment))
          broken.push({ page, link, why: `no heading makes #${fragment}` });
      }
    }
  }
  return broken;
}
