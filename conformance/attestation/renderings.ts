// Every rendering of a bundle says what its conformance.json says: conformance.md, conformance.html
// and junit.xml are rendered again from the report, by the code that rendered them, and must be
// the same bytes. What a rendering holds beyond the report is taken from the bundle itself: the
// position of each exchange in exchanges.har (the HTML's links to evidence) and the seconds each
// rule's test took (junit.xml's time attributes, which say nothing of a verdict). A re-signed
// bundle whose HTML or JUnit file came from another run is refused, whatever its digests.
import type { ConformanceReport } from '../../schemas/generated/conformance-report.ts';
import { renderHtml } from '../report/html.ts';
import { renderJunit } from '../report/junit.ts';
import { renderMarkdown } from '../report/markdown.ts';
import { REPORT_FILES } from '../report/write-reports.ts';

/** What differs between each rendering in the bundle and the one `report` gives; [] when none. */
export function renderingDifferences(
  report: ConformanceReport,
  read: (name: string) => Buffer | undefined,
): string[] {
  const problems: string[] = [];
  const compare = (name: string, rendered: string | undefined): void => {
    const bytes = read(name);
    if (bytes === undefined || rendered === undefined) return; // missing or refused: named already
    if (!bytes.equals(Buffer.from(rendered)))
      problems.push(
        `${name} is not the rendering of ${REPORT_FILES.json}${firstDifference(bytes.toString('utf8'), rendered)}: every report of a bundle must say what ${REPORT_FILES.json} says.`,
      );
  };
  compare(REPORT_FILES.markdown, renderMarkdown(report));
  const junit = read(REPORT_FILES.junit);
  compare(
    REPORT_FILES.junit,
    junit === undefined ? undefined : renderJunit(report, secondsInJunit(junit.toString('utf8'))),
  );
  const harEntries = harPositions(read(REPORT_FILES.har));
  if (harEntries === undefined)
    problems.push(
      `${REPORT_FILES.har} is not a HAR file of the kit's: ${REPORT_FILES.html} cannot be rendered again to check it.`,
    );
  else compare(REPORT_FILES.html, renderHtml(report, { harEntries }));
  return problems;
}

/** The seconds of each rule's test case, as junit.xml gives them (by the rule id in the case's name). */
export function secondsInJunit(xml: string): Map<string, number> {
  const seconds = new Map<string, number>();
  for (const match of xml.matchAll(
    /<testcase name="(?:\[WARNING\] )?[A-Z]+ ([A-Z0-9-]+): [^"]*" classname="[^"]*" time="(\d+(?:\.\d+)?)"/g,
  ))
    if (match[1] !== undefined) seconds.set(match[1], Number(match[2]));
  return seconds;
}

/** Each exchange id's position (1-based) in the HAR, as the HTML links to it; undefined if not a HAR. */
function harPositions(bytes: Buffer | undefined): Map<string, number> | undefined {
  if (bytes === undefined) return new Map();
  let har: unknown;
  try {
    har = JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
  const entries = (har as { log?: { entries?: unknown } } | null)?.log?.entries;
  if (!Array.isArray(entries)) return undefined;
  return new Map(
    entries.flatMap((entry: unknown, index) => {
      const id = (entry as { _id?: unknown } | null)?._id;
      return typeof id === 'string' ? [[id, index + 1] as const] : [];
    }),
  );
}

/** Where two texts first differ, as " (line N: "…")" for a message; the line is cut short. */
function firstDifference(found: string, expected: string): string {
  const a = found.split('\n');
  const b = expected.split('\n');
  const line = a.findIndex((text, index) => text !== b[index]);
  const at = line === -1 ? Math.min(a.length, b.length) : line;
  const shown = (a[at] ?? '').slice(0, 120);
  return ` (line ${at + 1} reads "${shown}")`;
}
