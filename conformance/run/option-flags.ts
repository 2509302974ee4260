// The flags of the run's options, made from their rows (run-option-table.ts): the options
// parseArgs accepts, and what the flags given say, each checked by its row as soon as it is read —
// a bad value is a UsageError naming the flag, before the environment is looked at.
import type { ParseArgsConfig } from 'node:util';
import { RUN_OPTIONS, type RunOptionRow } from '../run-option-table.ts';
import type { FlagValues } from '../settings.ts';

/** parseArgs' options, by flag. */
export type FlagOptions = NonNullable<ParseArgsConfig['options']>;

/** The rows of `section` that have a flag (of every section when none is named). */
export function flaggedRows(section?: RunOptionRow['section']): RunOptionRow[] {
  return RUN_OPTIONS.filter(
    (row) => row.flag !== undefined && (section === undefined || row.section === section),
  );
}

/** The rows of `keys`, in the table's order. */
export function rowsOf(keys: readonly RunOptionRow['key'][]): RunOptionRow[] {
  return RUN_OPTIONS.filter((row) => keys.includes(row.key));
}

/** The parseArgs options of `rows`' flags: a switch's are booleans, every other takes a value. */
export function flagOptions(rows: readonly RunOptionRow[]): FlagOptions {
  const options: FlagOptions = {};
  for (const row of rows) {
    if (row.flag !== undefined) options[row.flag] = { type: row.kind === 'switch' ? 'boolean' : 'string' };
    if (row.offFlag !== undefined) options[row.offFlag] = { type: 'boolean' };
  }
  return options;
}

/** What `rows`' flags in parseArgs' `values` say, each checked (a UsageError naming the flag). */
export function flagValuesOf(rows: readonly RunOptionRow[], values: Record<string, unknown>): FlagValues {
  const flags: FlagValues = {};
  for (const row of rows) {
    if (row.flag === undefined) continue;
    const value = values[row.flag];
    if (typeof value === 'string') {
      row.parse(value, `--${row.flag}`, '');
      flags[row.key] = value;
    } else if (value === true) flags[row.key] = true;
    else if (row.offFlag !== undefined && values[row.offFlag] === true) flags[row.key] = false;
  }
  return flags;
}
