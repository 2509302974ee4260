// `--list` counts rules, not checks: a rule selected over HTTP/1.1 and HTTP/2 is two tests of the
// suite and one rule of the catalog ("96 of 48 rules selected" was the tests counted).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Suite } from '@playwright/test/reporter';
import ListReporter from '../../../conformance/run/list-reporter.ts';
import { ANNOTATION } from '../../../conformance/run/annotations.ts';
import { RULES } from '../../../conformance/catalog/rules.ts';

/** What ListReporter prints for a suite whose tests carry these rule ids (undefined: a team's own test). */
function listed(ids: (string | undefined)[]): string[] {
  const tests = ids.map((id) => ({
    annotations: id === undefined ? [] : [{ type: ANNOTATION.rule, description: id }],
  }));
  const suite = { allTests: () => tests } as unknown as Suite;
  const lines: string[] = [];
  const original = console.log;
  console.log = (line: string) => lines.push(line);
  try {
    new ListReporter().onBegin(undefined, suite);
  } finally {
    console.log = original;
  }
  return lines;
}

test('a rule over two protocols is listed and counted once; the checks are said apart', () => {
  const [first, second] = RULES;
  assert.ok(first && second);
  const lines = listed([first.id, second.id, undefined, first.id, second.id]);
  assert.equal(lines.filter((line) => line.includes(`${first.id}:`)).length, 1);
  assert.equal(lines.filter((line) => line.includes(`${second.id}:`)).length, 1);
  assert.equal(
    lines.at(-1),
    `\n2 of ${RULES.length} rules selected (4 checks over the protocols). Nothing was run; no report was written.`,
  );
});

test('every rule over one protocol: all of them, no checks count', () => {
  const lines = listed(RULES.map((rule) => rule.id));
  assert.equal(
    lines.at(-1),
    `\n${RULES.length} of ${RULES.length} rules selected. Nothing was run; no report was written.`,
  );
});
