// Writes the documents rendered from code: docs/rules.md from the rule catalog,
// docs/client-rules.md from the client rule catalog, the options table of
// docs/running-the-suite.md from the table of run options, and the inputs table of
// docs/certification.md from the vendor's inputs. tests/conformance/catalog/catalog.test.ts,
// client-catalog.test.ts, run-option-table.test.ts and inputs-table.test.ts fail when a committed
// file is out of date.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { format, resolveConfig } from 'prettier';
import { renderRulesDoc } from '../conformance/report/rules-markdown.ts';
import { renderClientRulesDoc } from '../conformance/client-report/client-rules-markdown.ts';
import { withOptionsTable } from '../conformance/run/option-help.ts';
import { withInputsTable } from '../conformance/report/vendor-inputs.ts';

export const RULES_DOC = join(import.meta.dirname, '..', 'docs', 'rules.md');
export const CLIENT_RULES_DOC = join(import.meta.dirname, '..', 'docs', 'client-rules.md');
export const RUNNING_DOC = join(import.meta.dirname, '..', 'docs', 'running-the-suite.md');
export const CERTIFICATION_DOC = join(import.meta.dirname, '..', 'docs', 'certification.md');

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

/** docs/running-the-suite.md with its options table as the table of run options makes it. */
export async function formattedRunningDoc(): Promise<string> {
  return formatted(withOptionsTable(readFileSync(RUNNING_DOC, 'utf8')), RUNNING_DOC);
}

/** docs/certification.md with its inputs table as the vendor's inputs make it. */
export async function formattedCertificationDoc(): Promise<string> {
  return formatted(withInputsTable(readFileSync(CERTIFICATION_DOC, 'utf8')), CERTIFICATION_DOC);
}

if (process.argv[1] === import.meta.filename) {
  writeFileSync(RULES_DOC, await formattedRulesDoc());
  writeFileSync(CLIENT_RULES_DOC, await formattedClientRulesDoc());
  writeFileSync(RUNNING_DOC, await formattedRunningDoc());
  writeFileSync(CERTIFICATION_DOC, await formattedCertificationDoc());
  console.log(
    `wrote ${RULES_DOC}, ${CLIENT_RULES_DOC}, the options table of ${RUNNING_DOC} and the inputs table of ${CERTIFICATION_DOC}`,
  );
}
