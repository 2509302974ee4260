// The judging code's unit tests in ONE process, for StrykerJS's command runner
// (bench/mutation-judging.ts): node's `--test` starts a process per test file, which every mutant
// would pay again. Imported here, node:test runs them once the modules have loaded and sets a
// failing exit code when one fails.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = join(import.meta.dirname, '..', '..');
const JUDGING_TESTS = join(ROOT, 'tests', 'conformance', 'judging');

/** The unit tests of conformance/judging/: its directory of tests, and the page reader's. */
const files = [
  ...readdirSync(JUDGING_TESTS)
    .filter((name) => name.endsWith('.test.ts'))
    .sort()
    .map((name) => join(JUDGING_TESTS, name)),
  join(ROOT, 'tests', 'conformance', 'pages.test.ts'),
];
for (const file of files) await import(pathToFileURL(file).href);
