// Running again only what survived (bench/mutation/survivors.ts): the ranges given to Stryker name
// each undetected mutant's location, and the merged report keeps every other mutant's result.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { merged, rangesOf, undetected, type MutantResult } from '../../bench/mutation/survivors.ts';

const at = (line: number, column: number, status: string, replacement = 'x'): MutantResult => ({
  status,
  mutatorName: 'ConditionalExpression',
  replacement,
  location: { start: { line, column }, end: { line, column: column + 4 } },
});

test('the survivors and the uncovered are run again, each by its own range, once', () => {
  const mutants = [
    at(3, 1, 'Killed'),
    at(5, 2, 'Survived'),
    at(5, 2, 'Survived', 'y'),
    at(9, 7, 'NoCoverage'),
  ];
  const again = undetected(mutants);
  assert.deepEqual(
    again.map((mutant) => mutant.location?.start.line),
    [5, 5, 9],
  );
  assert.deepEqual(rangesOf('a.ts', again), ['a.ts:5:1-5:6', 'a.ts:9:6-9:11']);
  assert.deepEqual(rangesOf('a.ts', [{ status: 'Survived' }]), []);
});

test('a mutant run again takes its new result; the others keep theirs; a new one is added', () => {
  const old = [at(3, 1, 'Killed'), at(5, 2, 'Survived'), at(5, 2, 'Survived', 'y')];
  const again = [at(5, 2, 'Killed'), at(5, 2, 'Survived', 'y'), at(6, 1, 'Killed')];
  assert.deepEqual(
    merged(old, again).map((mutant) => [mutant.location?.start.line, mutant.replacement, mutant.status]),
    [
      [3, 'x', 'Killed'],
      [5, 'x', 'Killed'],
      [5, 'y', 'Survived'],
      [6, 'x', 'Killed'],
    ],
  );
});
