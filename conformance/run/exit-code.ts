// The exit code of a run, read back from the reporter: Playwright itself only exits 0 or 1.
import { readFileSync } from 'node:fs';
import { EXIT_CODE } from '../report/verdict.ts';

/**
 * The reporter's exit code; without one (Playwright stopped before its reporter, e.g. --list or a
 * broken config), Playwright's own, where any failure is one of the run, not of the target.
 */
export function exitCodeOf(outcomeFile: string, playwrightStatus: number | null): number {
  try {
    return (JSON.parse(readFileSync(outcomeFile, 'utf8')) as { exitCode: number }).exitCode;
  } catch {
    return playwrightStatus === 0 ? EXIT_CODE.ok : EXIT_CODE.setup;
  }
}
