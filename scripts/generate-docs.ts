// Writes the documents rendered from code: docs/rules.md from the rule catalog, and
// docs/client-rules.md from the client rule catalog. tests/conformance/catalog/catalog.test.ts and
// client-catalog.test.ts fail when a committed file is out of date.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { format, resolveConfig } from 'prettier';
import { renderRulesDoc } from '../conformance/report/rules-markdown.ts';
import { renderClientRulesDoc } from '../conformance/client-report/client-rules-markdown.ts';

export const RULES_DOC = join(import.meta.dirname, '..', 'docs', 'rules.md');
export const CLIENT_RULES_DOC = join(import.meta.dirname, '..', 'docs', 'client-rules.md');

/** A document as committed: rendered, then formatted like every Markdown file of the project. */
async function formatted(markdown: string, file: string): Promise<string> {
  return format(markdown, { ...((await resolveConfig(file)) ?? {}), parser: 'markdown' });
}

export async function formattedRulesDoc(): Promise<string> {
  return formatted(renderRulesDoc(), RULES_DOC);
}

export async function formattedClientRulesDoc(): Promise<string> {
  return formatted(renderClientRulesDoc(), CLIENT_RULES_DOC);
}

if (process.argv[1] === import.meta.filename) {
  writeFileSync(RULES_DOC, await formattedRulesDoc());
  writeFileSync(CLIENT_RULES_DOC, await formattedClientRulesDoc());
  console.log(`wrote ${RULES_DOC} and ${CLIENT_RULES_DOC}`);
}
