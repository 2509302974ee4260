// Which unit tests a mutant of a judging file can meet: the judging code's test files
// (tests/conformance/judging/*.test.ts and the page reader's tests/conformance/pages.test.ts)
// whose imports load the file, directly or through other modules. A test that never loads the
// file cannot kill its mutants, so running only these gives the score all of them would, for a
// fraction of the time each mutant costs (tsx compiles what each test loads, every run).
import { readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { loadedBy } from '../../tests/support/layers.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const JUDGING_TESTS = join('tests', 'conformance', 'judging');

/** Every unit test file of the judging code, relative to the repository's root. */
export function judgingTestFiles(root = ROOT): string[] {
  return [
    ...readdirSync(join(root, JUDGING_TESTS))
      .filter((name) => name.endsWith('.test.ts'))
      .sort()
      .map((name) => join(JUDGING_TESTS, name)),
    join('tests', 'conformance', 'pages.test.ts'),
  ];
}

/** The judging test files (relative to `root`) that load `file` (relative to `root`) when imported. */
export function testsLoading(file: string, root = ROOT): string[] {
  const target = resolve(root, file);
  return judgingTestFiles(root).filter((test) =>
    loadedBy(resolve(root, test)).files.some((loaded) => relative(target, loaded) === ''),
  );
}
