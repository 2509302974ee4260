// The run's traffic file, as the workers share it: what one call of withTraffic leaves is what the
// next one reads, a shorter state after a longer one included (the file is cut to its new length).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ENV } from '../../../conformance/env.ts';
import { initialTraffic, readTraffic, withTraffic } from '../../../conformance/requests/shared-pacing.ts';
import { scratchDirectory } from '../../support/scratch.ts';

test('each call reads what the one before left, and the file holds exactly that state', () => {
  const file = join(scratchDirectory('shared-pacing-'), 'traffic.json');
  const env = { [ENV.trafficFile]: file };
  writeFileSync(file, JSON.stringify(initialTraffic(undefined)));
  const many = Array.from({ length: 200 }, (_, index) => 1_000_000 + index);
  withTraffic((state) => (state.recentSends = many), env);
  assert.deepEqual(readTraffic(file)?.recentSends, many);
  // Shorter than what the file held: nothing of the longer state may be left after it.
  const served = withTraffic((state) => {
    state.recentSends = [7];
    state.served = (state.served ?? 0) + 1;
    return state.served;
  }, env);
  assert.equal(served, 1);
  assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')), {
    ...initialTraffic(undefined),
    recentSends: [7],
    served: 1,
  });
  assert.equal(
    withTraffic((state) => state.served, env),
    1,
  );
});

test('without a file yet, the first call starts from the initial state and writes it', () => {
  const file = join(scratchDirectory('shared-pacing-'), 'traffic.json');
  const env = { [ENV.trafficFile]: file };
  withTraffic((state) => (state.waitedMs = 250), env);
  assert.deepEqual(readTraffic(file), { ...initialTraffic(undefined), waitedMs: 250 });
});
