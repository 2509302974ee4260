// The floor of a conformance run (bench/floor.config.ts): one test that checks nothing, so that a
// run times only what Playwright, the embedded server's start, the preflight and the reporters
// cost with the suite's config.
import { test } from '@playwright/test';

test('no check: the floor of a run', () => {
  test.info().annotations.push({ type: 'floor', description: 'checks nothing on purpose' });
});
