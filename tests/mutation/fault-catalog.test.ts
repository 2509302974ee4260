// The fault catalog (mutation/catalog.ts) as it must be without a run: every fault names the
// rules it is caught by, each once, and every rule is the purpose of a fault. That each fault is
// caught indeed is the campaign's (mutation.test.ts).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { RULE_DECLARATIONS } from '../../conformance/catalog/rules.ts';
import { FAULT_NAMES, FAULTS } from '../../mutation/catalog.ts';
import { consequencesOf } from '../../mutation/knock-on.ts';
import { rulesNoFaultCatches } from '../support/rule-declarations.ts';

describe('the fault catalog', () => {
  test('every fault is caught by at least one rule, and lists each rule once', () => {
    for (const name of FAULT_NAMES) {
      const fault = FAULTS[name];
      assert.ok(fault.catches.length > 0, `${name} names no rule that catches it`);
      const listed = [...fault.catches, ...Object.keys(fault.alsoFails ?? {})];
      assert.equal(new Set(listed).size, listed.length, `${name} lists a rule twice (catches and alsoFails)`);
      const derived = Object.keys(consequencesOf({ catches: [], knockOn: fault.knockOn }));
      const twice = Object.keys(fault.alsoFails ?? {}).filter((id) => derived.includes(id));
      assert.deepEqual(twice, [], `${name}: alsoFails repeats what its knockOn derives`);
      assert.match(name, /^[a-z0-9]+(?:-[a-z0-9]+)*$/, `${name}: fault names are kebab-case`);
    }
  });

  test('every rule, MUST and HTTP above all, is the purpose of at least one fault', () => {
    assert.deepEqual(
      rulesNoFaultCatches(
        RULE_DECLARATIONS,
        FAULT_NAMES.map((name) => FAULTS[name]),
      ),
      [],
      'add a fault to mutation/faults/ for each of these rules (or, if the reference leaves the rule not applicable, say so in its declaration: notApplicableOnReference)',
    );
  });
});
