// Running again only what survived: after new tests, the mutants a file's last Stryker run left
// alive are run again (Stryker's `--mutate file:line:column-line:column` ranges) and their new
// results take the place of the old in that run's report; every other mutant keeps its result.
// Stryker's own `--incremental` can't do this with the command runner: without per-test coverage
// it reuses every old result, survivors included, however the tests changed (it re-runs a mutant
// only when its code changed). A report is reused only for the very source it was made from.

export interface Position {
  line: number;
  column: number;
}

export interface MutantResult {
  status: string;
  mutatorName?: string;
  replacement?: string;
  location?: { start: Position; end: Position };
}

/** The mutants no test detected: what a run of survivors runs again. */
export function undetected(mutants: readonly MutantResult[]): MutantResult[] {
  return mutants.filter((mutant) => mutant.status === 'Survived' || mutant.status === 'NoCoverage');
}

/**
 * Stryker's `--mutate` ranges of `file` for these mutants, one a location. A report's columns
 * count from 1, a range's from 0: the range starts a column earlier to hold the mutant.
 */
export function rangesOf(file: string, mutants: readonly MutantResult[]): string[] {
  const ranges = mutants.flatMap(({ location }) =>
    location
      ? [
          `${file}:${location.start.line}:${location.start.column - 1}-${location.end.line}:${location.end.column}`,
        ]
      : [],
  );
  return [...new Set(ranges)];
}

const identity = (mutant: MutantResult): string =>
  JSON.stringify([mutant.mutatorName, mutant.replacement, mutant.location]);

/**
 * The old run's mutants with each one run again replaced by its new result (matched by mutator,
 * replacement and location); a mutant the new run met that the old did not is added.
 */
export function merged(old: readonly MutantResult[], again: readonly MutantResult[]): MutantResult[] {
  const newer = new Map(again.map((mutant) => [identity(mutant), mutant]));
  const kept = old.map((mutant) => newer.get(identity(mutant)) ?? mutant);
  const known = new Set(old.map(identity));
  return [...kept, ...again.filter((mutant) => !known.has(identity(mutant)))];
}
