// Every report file of a run, from the report and the run's exchanges: conformance.json,
// conformance.md, conformance.html, junit.xml and exchanges.har, side by side in one directory.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ConformanceReport } from '../../schemas/generated/conformance-report.ts';
import { buildHar, type RunExchange } from './har.ts';
import { renderHtml } from './html.ts';
import { renderJunit } from './junit.ts';
import { renderMarkdown } from './markdown.ts';

export const REPORT_FILES = {
  json: 'conformance.json',
  markdown: 'conformance.md',
  html: 'conformance.html',
  junit: 'junit.xml',
  har: 'exchanges.har',
} as const;

export interface RunRecords {
  exchanges: readonly RunExchange[];
  /** Seconds the tests of each rule took, for JUnit. */
  secondsByRule?: ReadonlyMap<string, number>;
}

/** Writes the reports; returns the paths written, conformance.html first. */
export function writeReports(report: ConformanceReport, records: RunRecords, directory: string): string[] {
  mkdirSync(directory, { recursive: true });
  const har = buildHar(records.exchanges, report.suite);
  const harEntries = new Map(har.log.entries.map((entry, index) => [entry._id, index + 1]));
  const files: [string, string][] = [
    [REPORT_FILES.html, renderHtml(report, { harEntries })],
    [REPORT_FILES.markdown, renderMarkdown(report)],
    [REPORT_FILES.json, `${JSON.stringify(report, null, 2)}\n`],
    [REPORT_FILES.junit, renderJunit(report, records.secondsByRule)],
    [REPORT_FILES.har, `${JSON.stringify(har, null, 1)}\n`],
  ];
  return files.map(([name, content]) => {
    const path = join(directory, name);
    writeFileSync(path, content);
    return path;
  });
}
