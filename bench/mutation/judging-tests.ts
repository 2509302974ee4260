// The judging code's unit tests in ONE process, for StrykerJS's command runner
// (bench/mutation-judging.ts): node's `--test` starts a process per test file, which every mutant
// would pay again. Imported here, node:test runs them once the modules have loaded and sets a
// failing exit code when one fails. The test files named as arguments (those that load the file
// under mutation, judging-test-files.ts), or every judging test file when none is named.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { judgingTestFiles } from './judging-test-files.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const named = process.argv.slice(2);
const files = (named.length > 0 ? named : judgingTestFiles(ROOT)).map((file) => join(ROOT, file));
for (const file of files) await import(pathToFileURL(file).href);
