// The test files of `npm run test:unit`, in the order node:test starts them, one per line:
//   node --import tsx scripts/unit-test-files.ts > reports/unit-test-files.txt
//   node --import tsx --test … $(cat reports/unit-test-files.txt)
// The two longest files first, the mutation campaign and the packaging test, so that each runs
// while the others run beside it: listed in sorted order, the packaging test started about 350 s
// into a run and ran alone at its end for about a minute, one core of two idle (bench/
// test-time-results.md). Then tests/shared-process.test.ts, which runs the files it imports in one
// process, then every other `*.test.ts` under tests/, sorted. A file the shared process imports is
// not listed again.
import { readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { isMainModule } from '../kit/package-root.ts';
import { modules } from '../tests/support/layers.ts';

const ROOT = resolve(import.meta.dirname, '..');
const CAMPAIGN_FILE = 'tests/mutation/mutation.test.ts';
const PACKAGING_FILE = 'tests/packaging/install.test.ts';
/** The files that take longest, longest first: started first, they never end a run alone. */
export const LONGEST_FILES = [CAMPAIGN_FILE, PACKAGING_FILE];
export const SHARED_PROCESS_FILE = 'tests/shared-process.test.ts';

/** Every `*.test.ts` under tests/, relative to the repository root, sorted. */
export function allTestFiles(): string[] {
  return modules(join(ROOT, 'tests'))
    .filter((path) => path.endsWith('.test.ts'))
    .map((path) => relative(ROOT, path))
    .sort();
}

/**
 * The files tests/shared-process.test.ts imports, relative to the repository root. Only a line
 * `import './PATH.test.ts';` names one: a test file quoted any other way is an error, not a file
 * that would silently run twice.
 */
export function sharedProcessMembers(): string[] {
  const source = readFileSync(join(ROOT, SHARED_PROCESS_FILE), 'utf8');
  const members = [...source.matchAll(/^import '(\.\/[^']+\.test\.ts)';$/gm)].map(([, path = '']) => path);
  const mentioned = [...source.matchAll(/['"`]([^'"`]+\.test\.ts)['"`]/g)].map(([, path = '']) => path);
  const odd = mentioned.filter((path) => !members.includes(path));
  if (odd.length > 0)
    throw new Error(
      `${SHARED_PROCESS_FILE} names ${odd.join(', ')} other than as a line \`import './PATH.test.ts';\`: write it so, or remove it.`,
    );
  return members.map((path) => relative(ROOT, join(ROOT, 'tests', path)));
}

export function unitTestFiles(): string[] {
  const shared = new Set(sharedProcessMembers());
  const first = [...LONGEST_FILES, SHARED_PROCESS_FILE];
  const rest = allTestFiles().filter((file) => !first.includes(file) && !shared.has(file));
  return [...first, ...rest];
}

if (isMainModule(import.meta.url)) console.log(unitTestFiles().join('\n'));
