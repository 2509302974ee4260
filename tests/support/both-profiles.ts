// One run of the suite, read under both profiles: see testUnderBothProfiles.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runVerdict } from '../../conformance/report/verdict.ts';
import type { ConformanceRun } from './conformance-run.ts';

export type Profile = 'default' | 'strict';

/**
 * The two tests of a shape that must be CONFORMANT under both profiles, made from ONE run under
 * `--profile strict`. The profile changes no request the suite sends, only how a failed HTTP rule
 * counts; a run in which every rule passed is therefore the same run under either profile, and
 * the default profile's verdict is recomputed from its rules by the reporters' own code
 * (`runVerdict`). The strict test checks the run as it is; the default test checks that
 * recomputed verdict, then the same `check`. `run` is called once, by whichever test comes first.
 */
export function testUnderBothProfiles(
  title: (profile: Profile) => string,
  run: () => Promise<ConformanceRun>,
  check: (run: ConformanceRun, profile: Profile) => void | Promise<void>,
): void {
  let strictRun: Promise<ConformanceRun> | undefined;
  const once = (): Promise<ConformanceRun> => (strictRun ??= run());
  test(title('strict'), async () => {
    const done = await once();
    assert.equal(done.report?.profile, 'strict', 'the shared run is made under --profile strict');
    await check(done, 'strict');
  });
  test(`${title('default')} (the strict run's rules, read as the default profile reads them)`, async () => {
    const done = await once();
    assert.equal(
      runVerdict(done.report?.rules ?? [], 'default'),
      'CONFORMANT',
      'the verdict of the same rules under the default profile',
    );
    await check(done, 'default');
  });
}
