// The set-up project of a run (conformance/run/projects.ts), in the `run` command and in a team's
// config alike: the preflight, then the keys a target with `keyMinting` asks for, left in the run's
// state file for the rule workers, the teardown project and the reporter, then what the suite
// learns of the tenants (setup-learning.ts), once for the run. A failed preflight fails
// this test, and Playwright then runs none of the rule projects that depend on it. The embedded
// reference server is started here too, for the preflight alone: each rule worker starts its own,
// with the same certificate, so what the preflight pins is what the rules are served with.
import { untracedTest as test } from './untraced-test.ts';
import { mintKeys } from '../deployment/key-minting.ts';
import { runPreflight } from '../deployment/preflight.ts';
import { userAgentsFor } from '../requests/user-agents.ts';
import { ENV, setHandOvers, inputEnvironment } from '../env.ts';
import { ANNOTATION } from './annotations.ts';
import { useRunSettings } from '../settings.ts';
import { bindTarget } from './run-target.ts';
import { preflightSummary } from './preflight-state.ts';
import { writeProjectState } from './project-state.ts';
import { startEmbeddedInThisWorker, type SuiteOptions } from './projects.ts';
import { learnOnceForRun } from './setup-learning.ts';

test('conformance set-up: preflight and key minting', async ({ playwright }, testInfo) => {
  const {
    declaredTarget,
    runEnvironment,
    runSettings: settings,
  } = testInfo.project.use as Partial<SuiteOptions>;
  // Hand-overs, not settings: the run's state directory, where what the set-up found is left.
  setHandOvers(runEnvironment ?? {});
  if (!declaredTarget || !settings)
    throw new Error('No declaredTarget or runSettings option: use conformanceProjects() in the config.');
  // A key the target file names was not exported when the config was read: said now, as `run` says it.
  if (declaredTarget.keysMissing !== undefined) throw new Error(declaredTarget.keysMissing);
  // For the request layer of the preflight, which reads them with runSettings().
  useRunSettings(settings);
  // Bounded by the preflight's own time limits: a stage per declared URL, each one exchange long.
  testInfo.setTimeout(60_000 + 8 * settings.requestTimeoutMs);
  const server = await startEmbeddedInThisWorker();
  let preflight;
  try {
    userAgentsFor('preflight');
    preflight = await runPreflight(bindTarget(declaredTarget, inputEnvironment()), settings.requestTimeoutMs);
  } finally {
    await server?.close();
  }
  // Its requests go to the reporter (exchanges.har) as an attachment, which a blob keeps; the
  // workers need only what it found.
  const { exchanges, ...found } = preflight;
  const env: Record<string, string> = { [ENV.preflight]: JSON.stringify(found) };
  // The certificates this shard saw, in its own results (a blob keeps them): a merge judges each
  // shard by them, never by the record left beside its blob.
  const shard = testInfo.config.shard;
  if (shard)
    testInfo.annotations.push({ type: ANNOTATION.shard, description: `${shard.current}/${shard.total}` });
  await testInfo.attach(ANNOTATION.preflightTls, {
    body: JSON.stringify(preflight.tls ?? []),
    contentType: 'application/json',
  });
  await testInfo.attach(ANNOTATION.preflightExchanges, {
    body: JSON.stringify(exchanges ?? []),
    contentType: 'application/json',
  });
  console.log(preflightSummary(preflight));
  if (!preflight.ok || settings.preflightOnly) {
    writeProjectState({ env, minted: [] });
    if (!preflight.ok)
      throw new Error(`SETUP ERROR: the preflight failed; no rule was run.\n${preflightSummary(preflight)}`);
    return;
  }
  let minted: Awaited<ReturnType<typeof mintKeys>> | undefined;
  if (declaredTarget.keyMinting) {
    const adminToken = inputEnvironment()[declaredTarget.keyMinting.adminToken] ?? '';
    userAgentsFor('key-minting');
    minted = await mintKeys(declaredTarget, adminToken, declaredTarget.caFile);
  }
  writeProjectState({ env: { ...env, ...minted?.env }, minted: [...(minted?.made ?? [])] });
  // As long as a rule may take: the learning was the first rule's time in each worker before.
  testInfo.setTimeout(testInfo.timeout + 60_000 + settings.retryBudgetMs);
  userAgentsFor('learning');
  await learnOnceForRun(
    playwright.request,
    { runSettings: settings, runEnvironment, declaredTarget },
    testInfo,
  );
});
