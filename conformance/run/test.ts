// The Playwright fixtures of the conformance suite: the target, the run's settings, the clients and
// what the workers learn of the tenants. Each rule's test uses them through `registerRules`
// (conformance-rule.ts), which makes a rule's declaration its test.
import { test as base } from '@playwright/test';
import { ApiClient, type Api } from '../requests/api-client.ts';
import { RawApi } from '../requests/raw-api.ts';
import { PROTOCOL_NAME, type Protocol } from '../requests/protocols.ts';
import { useRunSettings, type RunSettings } from '../settings.ts';
import { startConnectProxy } from '../requests/connect-proxy.ts';
import { RawClient } from '../requests/raw-client.ts';
import type { RuleId } from '../catalog/rules.ts';
import { keyNamerFor, type KeyNamer } from '../redaction/shown-keys.ts';
import type { Exchange } from '../requests/exchange.ts';
import { bindTarget } from './run-target.ts';
import type { ResolvedTarget, TargetDeclaration } from '../deployment/target.ts';
import { learnTenants, type Knowledge } from '../judging/knowledge.ts';
import { ANNOTATION } from './annotations.ts';
import { stoppedReason } from '../requests/answer-watch.ts';
import { preflightFromEnvironment } from './preflight-state.ts';
import { readProjectState } from './project-state.ts';
import { startEmbeddedInThisWorker } from './projects.ts';
import type { DeclaredUrl, PreflightProblem } from '../deployment/preflight.ts';

interface WorkerFixtures {
  /** Option: the run's settings, as the entry point resolved them (conformance/settings.ts). */
  runSettings: Readonly<RunSettings> | undefined;
  /**
   * Option: what this project's processes hand each other (the run's shared files, env.ts
   * HAND_OVER_VARIABLES), for a config that checks several targets in one Playwright run, one
   * project each (a worker serves one project only). Never a setting.
   */
  runEnvironment: Readonly<Record<string, string>> | undefined;
  /**
   * Option: rules whose test is expected to fail. Only Playwright's bookkeeping changes: such a
   * failure does not make it replace the worker process. The rule's verdict is its test's status
   * as ever — a rule listed here that passes is a pass. Used by the mutation campaign
   * (mutation/), where most variants fail a few rules; empty for a conformance run.
   */
  expectedToFail: readonly RuleId[];
  /**
   * Option: the protocol this project's rules speak over TLS (playwright.config.ts makes a
   * project per protocol the target offers). Plain-HTTP probes stay HTTP/1.1 either way.
   */
  protocol: Protocol;
  /** Option: the run's target as the config declared it (conformance/run/run-target.ts), without keys. */
  declaredTarget: TargetDeclaration | undefined;
  /** The declared target bound to its keys, in this worker's environment. */
  target: ResolvedTarget;
  /**
   * The run's settings, as the project handed them (the `runSettings` option), made this worker's
   * before any rule runs; the rules and the fixtures take them from here.
   */
  settings: Readonly<RunSettings>;
  /** Declared URLs the preflight could not reach: the rules that need them are not evaluated. */
  unreachable: ReadonlyMap<DeclaredUrl, PreflightProblem>;
  /** One per worker: it reads the target's CA file once, not once per rule. */
  raw: RawClient;
  namer: KeyNamer;
  proxyUrl: string | undefined;
  /** The exchanges by which this worker learned the tenants' data (see knowledge.ts). */
  learningExchanges: Exchange[];
  apiWorker: Api;
  knowledge: Knowledge;
}

interface TestFixtures {
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
  expectedToFail: [[], { option: true, scope: 'worker' }],
  protocol: ['h1', { option: true, scope: 'worker' }],
  declaredTarget: [undefined, { option: true, scope: 'worker' }],
  target: [
    async ({ runEnvironment, declaredTarget, settings: _settings }, use) => {
      // Hand-overs, not settings: set before anything reads them (the preflight's result, the answer watch).
      Object.assign(process.env, runEnvironment);
      // What the set-up project found (conformance/run/project-setup.ts): the preflight, minted keys.
      Object.assign(process.env, readProjectState()?.env);
      if (!declaredTarget) throw new Error('No declaredTarget option: run the suite with its config.');
      const server = declaredTarget.mode === 'embedded' ? await startEmbeddedInThisWorker() : undefined;
      try {
        await use(bindTarget(declaredTarget));
      } finally {
        await server?.close();
      }
    },
    { scope: 'worker' },
  ],
  settings: [
    async ({ runSettings }, use) => {
      if (!runSettings) throw new Error('No runSettings option: run the suite with its config.');
      // For the request layer, which reads them with runSettings() (a worker serves one project).
      useRunSettings(runSettings);
      await use(runSettings);
    },
    { scope: 'worker' },
  ],
  unreachable: [
    // Read after the target: its project's environment is in place.
    async ({ target: _target }, use) => {
      const problems = preflightFromEnvironment()?.unavailable ?? [];
      await use(new Map(problems.flatMap((problem) => (problem.field ? [[problem.field, problem]] : []))));
    },
    { scope: 'worker' },
  ],
  raw: [
    async ({ target, protocol, settings }, use) => {
      await use(
        new RawClient({
          hosts: target.hosts,
          caFile: target.caFile,
          protocol,
          timeoutMs: settings.requestTimeoutMs,
        }),
      );
    },
    { scope: 'worker' },
  ],
  namer: [
    async ({ target }, use) => {
      await use(keyNamerFor(target));
    },
    { scope: 'worker' },
  ],
  proxyUrl: [
    async ({ target }, use) => {
      if (Object.keys(target.hosts).length === 0) return use(undefined);
      const proxy = await startConnectProxy(target.hosts);
      await use(proxy.url);
      await proxy.close();
    },
    { scope: 'worker' },
  ],
  learningExchanges: [
    // eslint-disable-next-line no-empty-pattern -- Playwright requires the fixtures argument to be destructured.
    async ({}, use) => {
      await use([]);
    },
    { scope: 'worker' },
  ],
  apiWorker: [
    async ({ playwright, proxyUrl, learningExchanges, raw }, use) => {
      const listener = (exchange: Exchange): number => learningExchanges.push(exchange);
      if (raw.protocol === 'h2') return use(new RawApi(raw.listening(listener)));
      const context = await playwright.request.newContext(proxyUrl ? { proxy: { server: proxyUrl } } : {});
      await use(new ApiClient(context, listener));
      await context.dispose();
    },
    { scope: 'worker' },
  ],
  knowledge: [
    async ({ apiWorker, target, unreachable, settings }, use) => {
      // Nothing is asked of a URL the preflight could not reach: its rules are not evaluated.
      const reachable = { ...target };
      for (const field of unreachable.keys()) if (field !== 'baseUrl') delete reachable[field];
      const bounds = { maxPages: settings.maxListPages, maxRecords: settings.maxListRecords };
      await use(await learnTenants(apiWorker, reachable, bounds));
    },
    { scope: 'worker' },
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
    { auto: true },
  ],
  notSentGuard: [
    // Set up before any fixture that sends (the tenants' data are learned by the first rule of a
    // worker). Once the target has stopped answering, a rule would only fail on exchanges that are
    // never sent, and Playwright replaces its worker after every failed test: a process start per
    // remaining rule. Skipped with the reason instead, the rule's verdict is still ERROR (the
    // reporter reads the annotation), and the rules whose exchanges went unanswered have failed
    // their tests already. After the target: the answer watch's file is one of its project's
    // hand-overs, in place only once the target fixture has set them (in a worker's first test too).
    async ({ target: _target }, use, testInfo) => {
      const reason = stoppedReason();
      if (reason !== undefined) {
        testInfo.annotations.push({ type: ANNOTATION.notSent, description: reason });
        testInfo.skip(true, reason);
      }
      await use();
    },
    { auto: true },
  ],
  // eslint-disable-next-line no-empty-pattern -- Playwright requires the fixtures argument to be destructured.
  exchanges: async ({}, use) => {
    await use([]);
  },
  api: async ({ playwright, proxyUrl, exchanges, raw }, use) => {
    const listener = (exchange: Exchange): number => exchanges.push(exchange);
    if (raw.protocol === 'h2') return use(new RawApi(raw.listening(listener)));
    const context = await playwright.request.newContext(proxyUrl ? { proxy: { server: proxyUrl } } : {});
    await use(new ApiClient(context, listener));
    await context.dispose();
  },
});

export { expect } from '@playwright/test';
