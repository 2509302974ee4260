// The Playwright fixtures of the conformance suite: the target, the run's settings, the clients and
// what the workers learn of the tenants. Each rule's test uses them through `registerRules`
// (conformance-rule.ts), which makes a rule's declaration its test. What a worker holds of its run
// (variant-world.ts) is kept by a worker fixture and handed to each test, so that a worker of the
// mutation campaign's batch can serve several runs, one per test's `batchVariant` option.
import type { TestInfo } from '@playwright/test';
import { untracedTest as base } from './untraced-test.ts';
import { KIT_FIXTURE_BOX } from './batch-quiet-fixtures.ts';
import type { Api } from '../requests/api-client.ts';
import { PROTOCOL_NAME, type Protocol } from '../requests/protocols.ts';
import type { RunSettings } from '../settings.ts';
import type { Exchange } from '../requests/exchange.ts';
import type { ResolvedTarget, TargetDeclaration } from '../deployment/target.ts';
import type { Knowledge } from '../judging/knowledge.ts';
import { ANNOTATION } from './annotations.ts';
import { stoppedReason } from '../requests/answer-watch.ts';
import { VariantWorlds, type VariantWorld } from './variant-world.ts';
import type { BatchVariantOptions } from './batch-variants.ts';

interface WorkerFixtures {
  /** Option: the run's settings, as the entry point resolved them (conformance/settings.ts). */
  runSettings: Readonly<RunSettings> | undefined;
  /**
   * Option: what this project's processes hand each other (the run's shared files, env.ts
   * HAND_OVER_VARIABLES), for a config that checks several targets in one Playwright run, one
   * project each (a worker serves one project only; the mutation campaign's batch gives each
   * variant's as a test option instead, `batchVariants`). Never a setting.
   */
  runEnvironment: Readonly<Record<string, string>> | undefined;
  /** Option: a rule that fails keeps its worker (failed-rules-keep-worker.ts); the `run` command's alone. */
  failedRulesKeepWorker: boolean;
  /**
   * Option: the protocol this project's rules speak over TLS (playwright.config.ts makes a
   * project per protocol the target offers). Plain-HTTP probes stay HTTP/1.1 either way.
   */
  protocol: Protocol;
  /** Option: the run's target as the config declared it (conformance/run/run-target.ts), without keys. */
  declaredTarget: TargetDeclaration | undefined;
  /** What this worker holds of each run it serves (variant-world.ts), closed when it stops. */
  variantWorlds: VariantWorlds;
}

interface TestFixtures {
  /**
   * Option, of the mutation campaign's batch alone (mutation/batch.config.ts): the variants a
   * project checks, each given as the worker options above would give it — as test options,
   * which cost no worker each (batch-variants.ts). Empty in a conformance run.
   */
  batchVariants: readonly BatchVariantOptions[];
  /** Option: the variant of `batchVariants` this test checks (registerRules sets it); else none. */
  batchVariantName: string | undefined;
  /**
   * This test's run in this worker, entered (its hand-overs and settings the process's): its
   * clients, key namer, unreachable URLs, learning exchanges and rules expected to fail.
   */
  variant: VariantWorld;
  /** The declared target bound to its keys, in this worker's environment. */
  target: ResolvedTarget;
  /**
   * The run's settings, as the project handed them (the `runSettings` option), made this process's
   * before the test runs (variant-world.ts); the rules and the fixtures take them from here.
   */
  settings: Readonly<RunSettings>;
  /** The tenants' data, as the run's set-up project learned them (see setup-learning.ts). */
  knowledge: Knowledge;
  /** Every exchange of the current test, for exchanges.har. */
  exchanges: Exchange[];
  api: Api;
  /** Says, first, what the test ran over (ANNOTATION.protocol, ANNOTATION.shard): see below. */
  ranAs: void;
  /** Skips the rule, as an ERROR, once the target has stopped answering: see below. */
  notSentGuard: void;
}

export const test = base.extend<TestFixtures, WorkerFixtures>({
  // Playwright's per-test artifacts fixture depends on this one, which gathers some thirty browser
  // context options, each a fixture of its own that Playwright records as a step with a captured,
  // source-mapped stack: about a tenth of a worker's CPU, in every rule. The rules open no browser,
  // so none of those options applies; a constant replaces them. (The name is Playwright's own; the
  // machinery test fails if it disappears, and with it this saving.)
  // @ts-expect-error -- not in Playwright's public fixture types.
  _combinedContextOptions: [{}, { box: true }],
  runSettings: [undefined, { option: true, scope: 'worker' }],
  runEnvironment: [undefined, { option: true, scope: 'worker' }],
  failedRulesKeepWorker: [false, { option: true, scope: 'worker' }],
  protocol: ['h1', { option: true, scope: 'worker' }],
  declaredTarget: [undefined, { option: true, scope: 'worker' }],
  batchVariants: [[], { option: true, box: KIT_FIXTURE_BOX }],
  batchVariantName: [undefined, { option: true, box: KIT_FIXTURE_BOX }],
  variantWorlds: [
    async ({ playwright }, use) => {
      const worlds = new VariantWorlds(playwright.request);
      await use(worlds);
      await worlds.close();
    },
    { scope: 'worker' },
  ],
  variant: [
    async (
      {
        variantWorlds,
        batchVariants,
        batchVariantName,
        runSettings,
        runEnvironment,
        declaredTarget,
        protocol,
      },
      use,
      testInfo,
    ) => {
      const batchVariant = batchVariantOf(batchVariants, batchVariantName);
      // A conformance run's worker serves its project's run alone: one key for every test.
      const options = batchVariant ?? {
        name: '',
        runSettings,
        runEnvironment,
        declaredTarget,
      };
      await use(await withoutRuleTime(testInfo, variantWorlds.enter(options.name, { ...options, protocol })));
    },
    { box: KIT_FIXTURE_BOX },
  ],
  target: [async ({ variant }, use) => use(variant.target), { box: KIT_FIXTURE_BOX }],
  settings: [async ({ variant }, use) => use(variant.settings), { box: KIT_FIXTURE_BOX }],
  knowledge: [
    async ({ variant }, use, testInfo) => use(await withoutRuleTime(testInfo, variant.knowledge)),
    { box: KIT_FIXTURE_BOX },
  ],
  ranAs: [
    // Before any fixture that may skip the test: the reporter counts a protocol as checked for a
    // rule from this, in a run and in a merge of shards alike (their blobs keep no project option).
    async ({ protocol }, use, testInfo) => {
      testInfo.annotations.push({ type: ANNOTATION.protocol, description: PROTOCOL_NAME[protocol] });
      const shard = testInfo.config.shard;
      if (shard)
        testInfo.annotations.push({ type: ANNOTATION.shard, description: `${shard.current}/${shard.total}` });
      await use();
    },
    { auto: true, box: KIT_FIXTURE_BOX },
  ],
  notSentGuard: [
    // Set up before any fixture that sends (without a set-up project, the tenants' data are learned
    // by the first rule of a worker). Once the target has stopped answering, a rule would only fail on exchanges that are
    // never sent, and Playwright replaces its worker after every failed test: a process start per
    // remaining rule. Skipped with the reason instead, the rule's verdict is still ERROR (the
    // reporter reads the annotation), and the rules whose exchanges went unanswered have failed
    // their tests already. After the variant: the answer watch's file is one of its run's
    // hand-overs, in place only once the variant is entered (in a worker's first test too).
    async ({ variant: _variant }, use, testInfo) => {
      const reason = stoppedReason();
      if (reason !== undefined) {
        testInfo.annotations.push({ type: ANNOTATION.notSent, description: reason });
        testInfo.skip(true, reason);
      }
      await use();
    },
    { auto: true, box: KIT_FIXTURE_BOX },
  ],
  exchanges: [
    // eslint-disable-next-line no-empty-pattern -- Playwright requires the fixtures argument to be destructured.
    async ({}, use) => {
      await use([]);
    },
    { box: KIT_FIXTURE_BOX },
  ],
  api: [
    async ({ variant, exchanges }, use) => {
      const { api, close } = await variant.newApi((exchange) => exchanges.push(exchange));
      await use(api);
      await close();
    },
    { box: KIT_FIXTURE_BOX },
  ],
});

export { expect } from '@playwright/test';

function batchVariantOf(
  variants: readonly BatchVariantOptions[],
  name: string | undefined,
): BatchVariantOptions | undefined {
  if (name === undefined) return undefined;
  const variant = variants.find((candidate) => candidate.name === name);
  if (!variant) throw new Error(`No batch variant ${name} in this project's batchVariants option.`);
  return variant;
}

/**
 * The worker's state for a run (the embedded server, the clients, the tenants' data learned) is
 * made by the first test that needs it; as worker fixtures it had a time-out of its own. The time
 * it takes is added to that test's, so that a slow learning (a paced or rate-limited front) never
 * leaves the rule itself less time than any other rule gets.
 */
async function withoutRuleTime<T>(testInfo: TestInfo, work: Promise<T>): Promise<T> {
  const started = Date.now();
  try {
    return await work;
  } finally {
    // 0 is no time-out at all (--timeout 0): nothing to add to.
    if (testInfo.timeout > 0) testInfo.setTimeout(testInfo.timeout + (Date.now() - started));
  }
}
