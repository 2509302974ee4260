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

export type ReportFormat = keyof typeof REPORT_FILES;

/** Every format, in the order they are written. */
export const ALL_REPORT_FORMATS: readonly ReportFormat[] = ['html', 'markdown', 'json', 'junit', 'har'];

/**
 * Writes the reports of `formats` (every one unless told); returns the paths written, in the
 * order of ALL_REPORT_FORMATS: conformance.html first when it is written. Only the mutation
 * campaign's batch asks for fewer: it reads conformance.json alone, sixty times.
 */
export function writeReports(
  report: ConformanceReport,
  records: RunRecords,
  directory: string,
  formats: readonly ReportFormat[] = ALL_REPORT_FORMATS,
): string[] {
  mkdirSync(directory, { recursive: true });
  // Built once for the HAR file and the HTML report's links into it, and only for them.
  let built: ReturnType<typeof buildHar> | undefined;
  const har = (): ReturnType<typeof buildHar> => (built ??= buildHar(records.exchanges, report.suite));
  const render: Record<ReportFormat, () => string> = {
    html: () => {
      const harEntries = new Map(har().log.entries.map((entry, index) => [entry._id, index + 1]));
      return renderHtml(report, { harEntries });
    },
    markdown: () => renderMarkdown(report),
    json: () => `${JSON.stringify(report, null, 2)}\n`,
    junit: () => renderJunit(report, records.secondsByRule),
    har: () => `${JSON.stringify(har(), null, 1)}\n`,
  };
  const files = ALL_REPORT_FORMATS.filter((format) => formats.includes(format)).map(
    (format): [string, string] => [REPORT_FILES[format], render[format]()],
  );
  return files.map(([name, content]) => {
    const path = join(directory, name);
    writeFileSync(path, content);
    return path;
  });
}
