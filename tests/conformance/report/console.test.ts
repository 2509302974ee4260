// The reporter's console output: colour only where it is wanted, and a selection's summary that
// names the selected rules and counts the rest in one line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { stripVTControlCharacters } from 'node:util';
import { colourWanted, paint, summary } from '../../../conformance/report/console.ts';
import { RULES } from '../../../conformance/catalog/rules.ts';
import { sampleRun } from './sample-run.ts';
import { SAMPLE_FAILING_RULE } from '../../support/sample-failure.ts';

const ESC = '\u001b[';

test('colour on a terminal only; NO_COLOR and FORCE_COLOR decide over that', () => {
  const tty = { isTTY: true };
  const pipe = { isTTY: false };
  assert.equal(colourWanted(tty, {}), true);
  assert.equal(colourWanted(pipe, {}), false);
  assert.equal(colourWanted(tty, { NO_COLOR: '1' }), false);
  assert.equal(colourWanted(tty, { NO_COLOR: '' }), true, 'an empty NO_COLOR is not set (no-color.org)');
  assert.equal(colourWanted(pipe, { FORCE_COLOR: '1' }), true);
  assert.equal(colourWanted(tty, { FORCE_COLOR: '0' }), false);
  assert.equal(colourWanted(tty, { TERM: 'dumb' }), false);
});

test('the summary: selected rules that need attention, one line for the rest, escape codes only when painting', () => {
  const { report } = sampleRun();
  const selected = new Set([SAMPLE_FAILING_RULE, 'KEY-INVALID-401', 'KEY-VALID-SERVED']);
  const reportFiles = ['/tmp/r/conformance.html', 'junit.xml'];
  const plain = summary(report, { selected, reportFiles, painter: paint(false) });
  assert.ok(!plain.includes(ESC), 'no escape code without colour');
  assert.match(
    plain,
    new RegExp(`FAIL {10}MUST {5}${SAMPLE_FAILING_RULE}: A valid key in double quotes: expected a rejection`),
  );
  assert.match(plain, /warning {7}HTTP {5}KEY-INVALID-401: /);
  assert.doesNotMatch(
    plain,
    /ENV-SANDBOX-KEY-SERVED|TENANT-CROSS-KEY-REJECTED/,
    'unselected rules are not listed',
  );
  const others = RULES.length - selected.size;
  assert.match(
    plain,
    new RegExp(
      `^ {2}${others} other rules not run in this selection \\(--grep, --shard\\): not evaluated\\.$`,
      'm',
    ),
  );
  assert.match(plain, /^VERDICT: NOT CONFORMANT \(staging, profile default\)$/m);
  const coloured = summary(report, { selected, reportFiles, painter: paint(true) });
  assert.ok(coloured.includes(`${ESC}31mFAIL`), 'a failure in red');
  assert.equal(stripVTControlCharacters(coloured), plain, 'colour adds nothing but escape codes');
});
