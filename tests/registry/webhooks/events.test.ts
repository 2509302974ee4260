// The events of a change, from the state the registry's own answers give before and after it
// (eventsOf): exactly the transitions, of the events wanted, and nothing judged anew. The states
// are made by hand here; deliveries.test.ts derives them from real publishes and yanks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { eventsOf, type Change, type VersionState } from '../../../registry/webhooks/events.ts';
import { WEBHOOK_EVENTS, type WebhookEvent } from '../../../registry/webhooks/url.ts';
import type { StoredRun } from '../../../registry/store/runs.ts';
import { runFacts } from '../support/run-facts.ts';

const VERDICTS = ['CONFORMANT', 'NOT CONFORMANT', 'INCOMPLETE', 'SETUP ERROR'] as const;

const run = (id: number, verdict: string): StoredRun => ({
  ...runFacts('shop', { verdict }),
  id,
  bundleSha256: String(id).padStart(64, '0'),
  publishedAt: '2026-11-28T00:00:00.000Z',
  yanked: null,
  filesRemovedAt: null,
});

const state = (
  deciding: StoredRun | undefined,
  regressed: string[] = [],
  baseline = '0.9.0',
): VersionState => ({
  deciding,
  baseline,
  regressed: new Map(regressed.map((ruleId) => [ruleId, { level: 'MUST', from: 'pass', to: 'fail' }])),
});

const ALL = new Set<WebhookEvent>(WEBHOOK_EVENTS);
const kinds = (change: Change, before: VersionState, after: VersionState, wanted = ALL) =>
  eventsOf(change, before, after, wanted).map((event) => event.event);

test('a first run is published, not a change of verdict', () => {
  const first = run(1, 'CONFORMANT');
  assert.deepEqual(kinds({ kind: 'published', run: first }, state(undefined), state(first)), [
    'run.published',
  ]);
});

test('a newer failing run of a certified version changes its verdict and loses the certification', () => {
  const was = run(1, 'CONFORMANT');
  const now = run(2, 'NOT CONFORMANT');
  const events = eventsOf({ kind: 'published', run: now }, state(was), state(now), ALL);
  assert.deepEqual(
    events.map((event) => event.event),
    ['run.published', 'version.verdict_changed', 'certified_version.lost'],
  );
  const lost = JSON.parse(events[2]?.body ?? '{}') as {
    was: { id: number };
    now: { id: number };
    cause: unknown;
  };
  assert.deepEqual([lost.was.id, lost.now.id], [1, 2]);
  assert.deepEqual(lost.cause, { published: { run: 2, page: '/runs/2' } });
  assert.equal(new Set(events.map((event) => event.eventId)).size, 3, 'an id per event');
});

test('a yank that leaves no deciding run changes the verdict to none', () => {
  const only = run(3, 'CONFORMANT');
  const events = eventsOf({ kind: 'yanked', run: only }, state(only), state(undefined), ALL);
  assert.deepEqual(
    events.map((event) => event.event),
    ['version.verdict_changed', 'certified_version.lost'],
  );
  assert.equal((JSON.parse(events[0]?.body ?? '{}') as { to: unknown }).to, null);
});

test('a regression is sent once: the rules regressed now and not before', () => {
  const was = run(1, 'NOT CONFORMANT');
  const now = run(2, 'NOT CONFORMANT');
  const events = eventsOf({ kind: 'published', run: now }, state(was, ['A']), state(now, ['A', 'B']), ALL);
  const regressed = events.find((event) => event.event === 'rule.regressed');
  const body = JSON.parse(regressed?.body ?? '{}') as { rules: { ruleId: string }[]; baseline: string };
  assert.deepEqual(
    body.rules.map((rule) => rule.ruleId),
    ['B'],
  );
  assert.equal(body.baseline, '0.9.0');
  assert.deepEqual(kinds({ kind: 'published', run: now }, state(was, ['A']), state(now, ['A'])), [
    'run.published',
  ]);
});

test('over every transition: exactly the events the deciding verdicts say, of those wanted', () => {
  const verdict = fc.option(fc.constantFrom(...VERDICTS), { nil: undefined });
  fc.assert(
    fc.property(
      verdict,
      verdict,
      fc.subarray([...WEBHOOK_EVENTS]),
      fc.constantFrom('published' as const, 'yanked' as const),
      (from, to, wanted, kind) => {
        const before = state(from === undefined ? undefined : run(1, from));
        const after = state(to === undefined ? undefined : run(2, to));
        const changed = run(2, to ?? 'CONFORMANT');
        const got = kinds({ kind, run: changed }, before, after, new Set(wanted));
        const expected = new Set<WebhookEvent>();
        if (kind === 'published') expected.add('run.published');
        if (from !== undefined && from !== to) expected.add('version.verdict_changed');
        if (from === 'CONFORMANT' && to !== 'CONFORMANT') expected.add('certified_version.lost');
        assert.deepEqual(new Set(got), new Set([...expected].filter((event) => wanted.includes(event))));
        assert.equal(got.length, new Set(got).size, 'no event twice');
      },
    ),
  );
});
