// Which User-Agent a request carries (conformance/requests/user-agents.ts) is a function of the
// request alone — its sender (a rule's id, the learning, the preflight) and its index among that
// sender's requests — so that it is the same in every run whatever order workers ran rules in;
// `--user-agent` overrides it. No network: the picking itself.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  COMMON_USER_AGENTS,
  nextUserAgent,
  userAgentOf,
  userAgentsFor,
} from '../../../conformance/requests/user-agents.ts';
import { RULES } from '../../../conformance/catalog/rules.ts';

const NONE = { userAgent: undefined };

/** The agents of a sender's first `count` requests, as the request layer picks them. */
function sentBy(sender: string, count: number): string[] {
  userAgentsFor(sender);
  return Array.from({ length: count }, () => nextUserAgent(NONE));
}

test('a request’s agent depends on its sender and index, not on what was sent before in the process', () => {
  fc.assert(
    fc.property(
      fc.constantFrom(...RULES.map((rule) => rule.id), 'learning', 'preflight'),
      fc.array(fc.constantFrom(...RULES.map((rule) => rule.id)), { maxLength: 5 }),
      fc.integer({ min: 1, max: 12 }),
      (sender, before, count) => {
        const alone = sentBy(sender, count);
        // Other rules first, in any order and number (another worker's schedule): the same agents.
        for (const other of before) sentBy(other, 3);
        assert.deepEqual(sentBy(sender, count), alone);
        assert.deepEqual(
          alone,
          alone.map((_agent, index) => userAgentOf(sender, index)),
        );
        for (const agent of alone) assert.ok(COMMON_USER_AGENTS.includes(agent));
      },
    ),
  );
});

test('varied across the run: every common client is picked, and no one for all of a rule’s first requests', () => {
  const firsts = RULES.map((rule) => userAgentOf(rule.id, 0));
  assert.deepEqual([...new Set(firsts)].sort(), [...COMMON_USER_AGENTS].sort());
  const learning = sentBy('learning', 8);
  assert.ok(new Set(learning).size > 1, learning.join(', '));
});

test('--user-agent sets every request’s agent without moving the index', () => {
  userAgentsFor('AUTH-MISSING-HEADER');
  assert.equal(nextUserAgent({ userAgent: 'tenant-auth-conformance' }), 'tenant-auth-conformance');
  assert.equal(nextUserAgent(NONE), userAgentOf('AUTH-MISSING-HEADER', 0));
});
