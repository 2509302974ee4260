// The run's options as people read them, made from their rows (run-option-table.ts): the lines
// of `run --help` and the options table of docs/running-the-suite.md, which a test holds to the
// table (tests/conformance/run-option-table.test.ts), as `npm run docs` writes it.
import { RUN_OPTIONS, type RunOptionRow } from '../run-option-table.ts';

const WIDTH = 100;
/** Where a flag's explanation starts. */
const INDENT = 21;

/** A space no line is broken at (`env NAME` stays on one line). */
const KEPT_TOGETHER = '\u00a0';

/** `text` in lines of at most WIDTH, the first after `lead`, every one indented to INDENT. */
function wrapped(lead: string, text: string): string[] {
  const lines: string[] = [];
  let line = lead.length <= INDENT - 2 ? lead.padEnd(INDENT - 1) : '';
  if (line === '') lines.push(lead);
  for (const word of text.split(' ')) {
    const blank = line.trim() === '';
    if (!blank && line.length + 1 + word.length > WIDTH) {
      lines.push(line);
      line = '';
    }
    line = line.trim() === '' ? `${' '.repeat(INDENT)}${word}` : `${line} ${word}`;
  }
  lines.push(line);
  return lines.map((each) => each.trimEnd().replaceAll(KEPT_TOGETHER, ' '));
}

/** How the variable of a row is given: `=1` for a switch, as a flag turns it on. */
function variableAsGiven(row: RunOptionRow, on = true): string {
  return row.kind === 'switch' ? `${row.variable}=${on ? 1 : 0}` : row.variable;
}

function helpText(row: RunOptionRow): string {
  return row.help.replace('{default}', row.defaultText ?? '');
}

/** The lines of --help of the rows of `section`, in the table's order. */
export function optionHelp(section: RunOptionRow['section']): string {
  return RUN_OPTIONS.filter((row) => row.flag !== undefined && row.section === section)
    .flatMap((row) => [
      ...wrapped(
        `  --${row.flag}${row.argument !== undefined ? ` ${row.argument}` : ''}`,
        `${helpText(row)}; env${KEPT_TOGETHER}${variableAsGiven(row)}`,
      ),
      ...(row.offFlag !== undefined
        ? wrapped(`  --${row.offFlag}`, `${row.offHelp}; env${KEPT_TOGETHER}${variableAsGiven(row, false)}`)
        : []),
    ])
    .join('\n');
}

/** The options table of the docs: flag, variable, default and what it does, one row each. */
export function optionsTableMarkdown(): string {
  const rows = RUN_OPTIONS.filter((row) => row.internal === undefined).map((row) => {
    const flags = [row.flag, row.offFlag]
      .filter((flag) => flag !== undefined)
      .map(
        (flag) => `\`--${flag}${row.argument !== undefined && flag === row.flag ? ` ${row.argument}` : ''}\``,
      )
      .join(', ');
    const fallback = row.kind === 'switch' || row.defaultText === undefined ? '' : `\`${row.defaultText}\``;
    const team = 'option' in row.team ? `\`${row.team.option}\`` : '—';
    return `| ${flags} | \`${row.variable}\` | ${fallback} | ${team} | ${row.doc} |`;
  });
  return [
    "| option | variable | default | in a team's config | what it does |",
    '| --- | --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
}

/** Where the generated table sits in docs/running-the-suite.md. */
export const OPTIONS_TABLE_START =
  '<!-- run options: generated from conformance/run-option-table.ts (npm run docs) -->';
export const OPTIONS_TABLE_END = '<!-- end of run options -->';

/** `document` with its options table (between the markers) rendered from the table. */
export function withOptionsTable(document: string): string {
  const start = document.indexOf(OPTIONS_TABLE_START);
  const end = document.indexOf(OPTIONS_TABLE_END);
  if (start < 0 || end < start) throw new Error('The options table markers are missing from the document.');
  return `${document.slice(0, start)}${OPTIONS_TABLE_START}\n\n${optionsTableMarkdown()}\n\n${document.slice(end)}`;
}
