// Writes the documents rendered from code: docs/rules.md from the rule catalog.
// tests/conformance/catalog.test.ts fails when the committed file is out of date.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { format, resolveConfig } from 'prettier';
import { renderRulesDoc } from '../conformance/report/rules-doc.ts';

export const RULES_DOC = join(import.meta.dirname, '..', 'docs', 'rules.md');

/** The document as committed: rendered, then formatted like every Markdown file of the project. */
export async function formattedRulesDoc(): Promise<string> {
  return format(renderRulesDoc(), { ...((await resolveConfig(RULES_DOC)) ?? {}), parser: 'markdown' });
}

if (process.argv[1] === import.meta.filename) {
  writeFileSync(RULES_DOC, await formattedRulesDoc());
  console.log(`wrote ${RULES_DOC}`);
}
