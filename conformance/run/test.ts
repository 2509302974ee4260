// The Playwright fixtures of the conformance suite and `conformanceRule`, the only way a spec
// declares a check: it ties the test to a catalog rule (title, tag, annotations), skips it as
// "not evaluated" when the target lacks an input, and applies the rule's level — a failed MUST
// fails the run, a failed HTTP rule fails it under `strict`, anything else becomes a warning.
import { test as base, type TestInfo } from '@playwright/test';
import { ApiClient, type Api } from '../requests/api-client.ts';
import { RawApi } from '../requests/raw-api.ts';
import { PROTOCOL_NAME, protocolsOfRun, type Protocol } from '../requests/protocols.ts';
import { useRunSettings, type RunSettings } from '../settings.ts';
import { Checks, ConformanceFailure } from '../judging/checks.ts';
import { startConnectProxy } from '../requests/connect-proxy.ts';
import { missingInputs, notEvaluatedReason } from '../deployment/inputs.ts';
import { RawClient } from '../requests/raw-client.ts';
import { ruleById, type Input, type RuleId } from '../catalog/rules.ts';
import { keyNamerFor, type KeyNamer } from '../redaction/shown-keys.ts';
import type { Exchange } from '../requests/exchange.ts';
import { recordExchange } from '../requests/exchange-record.ts';
import { bindTarget } from './run-target.ts';
import type { CredentialName, ResolvedTarget, TargetDeclaration } from '../deployment/target.ts';
import { failsRun } from '../report/verdict.ts';
import { learnTenants, type Knowledge } from '../judging/knowledge.ts';
import { ANNOTATION } from './annotations.ts';
import { stoppedReason } from '../requests/answer-watch.ts';
import { preflightFromEnvironment } from './preflight-state.ts';
import { readProjectState } from './project-state.ts';
import { startEmbeddedInThisWorker } from './projects.ts';
import { describeProblem, type DeclaredUrl, type PreflightProblem } from '../deployment/preflight.ts';

export interface RuleContext {
  api: Api;
  raw: RawClient;
  check: Checks;
  target: ResolvedTarget;
  knowledge: Knowledge;
  /** The run's settings (conformance/settings.ts): its time-out, its protocols, … */
  settings: Readonly<RunSettings>;
  /** The value of a credential the rule declared in `needs`. */
  credential: (name: CredentialName) => string;
  /** `Bearer <that credential>`: the Authorization value of a well-formed request. */
  bearer: (name: CredentialName) => string;
  /** `{base_url}/customers` of the tenant under test, or of another declared base URL. */
  customersUrl: (base?: 'otherTenantBaseUrl' | 'sandboxBaseUrl') => string;
  /** The other tenant's base URL; reading it without declaring the input is a defect. */
  readonly otherTenant: { baseUrl: string };
  /**
   * For a rule of HTTP/2's own (`http2Only` in the catalog): the raw client over HTTP/2 when the
   * target agrees to it by ALPN, whatever protocol the run's other rules speak. When it does not,
   * the rule ends as "not applicable" (no HTTP/2 request can reach it: never a pass). In a run
   * with an HTTP/2 project, the HTTP/1.1 project leaves the rule to that one (not evaluated there).
   */
  readonly overHttp2: () => Promise<RawClient>;
}

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
    // their tests already.
    async ({ settings: _settings }, use, testInfo) => {
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

export function conformanceRule(id: RuleId, body: (context: RuleContext) => Promise<void>): void {
  const rule = ruleById(id);
  test(
    `${rule.level} ${rule.id}: ${rule.statement}`,
    {
      tag: `@${rule.id}`,
      annotation: [
        { type: ANNOTATION.rule, description: rule.id },
        { type: ANNOTATION.level, description: rule.level },
        { type: ANNOTATION.source, description: rule.source },
      ],
    },
    async (
      {
        api,
        raw,
        target,
        settings,
        knowledge,
        namer,
        exchanges,
        learningExchanges,
        unreachable,
        expectedToFail,
      },
      testInfo,
    ) => {
      if (expectedToFail.includes(id)) test.fail();
      await attachLearningOnce(testInfo, learningExchanges, namer, knowledge);
      // A list learned in part: whatever this rule finds, the records past the bound were not seen.
      for (const cut of knowledge.listsCut ?? [])
        testInfo.annotations.push({ type: ANNOTATION.listCut, description: cut });
      const missing = missingInputs(target, rule.needs);
      if (missing.length > 0) notEvaluated(notEvaluatedReason(missing, target.file));
      const unreached = rule.needs.flatMap((input) => {
        const problem = unreachable.get(input as DeclaredUrl);
        return problem ? [problem] : [];
      });
      if (unreached.length > 0)
        notEvaluated(
          `not evaluated: the preflight could not reach ${unreached.map(describeProblem).join(' ')}`,
        );
      const check = new Checks(namer, knowledge);
      const context: RuleContext = {
        api,
        raw: raw.listening((exchange) => exchanges.push(exchange)),
        check,
        target,
        settings,
        knowledge,
        credential: (name) => declaredCredential(target, rule.needs, name),
        bearer: (name) => `Bearer ${declaredCredential(target, rule.needs, name)}`,
        customersUrl: (baseName) =>
          `${baseName ? declaredUrl(target, rule.needs, baseName) : target.baseUrl}/customers`,
        get otherTenant() {
          return { baseUrl: declaredUrl(target, rule.needs, 'otherTenantBaseUrl') };
        },
        overHttp2: () => http2ClientFor(context.raw, target.baseUrl, protocolsOfRun(settings)),
      };
      try {
        await body(context);
        // A keyless request that gets data is a failure wherever the suite sees it, whatever the
        // rule that sent it asks of the answer (an error body's shape, a path not missing, …).
        check.noDataWithoutKey(exchanges);
      } catch (thrown) {
        // The same when the rule ended otherwise (an ERROR, not applicable): a leak outweighs it.
        const error =
          thrown instanceof ConformanceFailure ? thrown : (keylessLeak(check, exchanges) ?? thrown);
        if (!(error instanceof ConformanceFailure)) throw redacted(error, namer);
        await recordEvidence(testInfo, error);
        if (failsRun(rule.level, target.profile)) throw error;
        testInfo.annotations.push({ type: ANNOTATION.warning, description: error.message });
      } finally {
        await attachExchanges(testInfo, ANNOTATION.exchanges, exchanges, namer);
      }
    },
  );
}

async function http2ClientFor(
  raw: RawClient,
  baseUrl: string,
  runProtocols: readonly Protocol[],
): Promise<RawClient> {
  if (raw.protocol === 'h1' && runProtocols.includes('h2'))
    notEvaluated(
      "not evaluated over HTTP/1.1: a rule of HTTP/2's own, checked in this run's HTTP/2 project.",
    );
  const agrees = await raw.agreesToHttp2(baseUrl);
  if (agrees === undefined)
    throw new Error(
      `The TLS handshake with ${baseUrl} offering h2 and http/1.1 did not complete: whether the target speaks HTTP/2 is not known.`,
    );
  if (!agrees)
    notApplicable(
      "not applicable: a rule of HTTP/2's own, and the target does not offer HTTP/2 by ALPN — no HTTP/2 request can reach it, so it was not exercised.",
    );
  return raw.withProtocol('h2');
}

/** The failure of a keyless request answered with a tenant's data among `exchanges`, if any. */
function keylessLeak(check: Checks, exchanges: readonly Exchange[]): ConformanceFailure | undefined {
  try {
    check.noDataWithoutKey(exchanges);
    return undefined;
  } catch (error) {
    if (error instanceof ConformanceFailure) return error;
    throw error;
  }
}

/** Ends the current rule as "not applicable": it needs what the target does not offer. Never a pass. */
export function notApplicable(reason: string): never {
  test.info().annotations.push({ type: ANNOTATION.notApplicable, description: reason });
  test.skip(true, reason);
  throw new Error('unreachable: test.skip throws');
}

/** Ends the current rule as "not evaluated": never a pass, always with the reason. */
export function notEvaluated(reason: string): never {
  test.info().annotations.push({ type: ANNOTATION.notEvaluated, description: reason });
  test.skip(true, reason);
  throw new Error('unreachable: test.skip throws');
}

/**
 * An error that is not a verdict (a network failure, a defect) goes to every report as it is:
 * if its message holds a key, it is replaced by a redacted copy first.
 */
function redacted(error: unknown, namer: KeyNamer): unknown {
  if (!(error instanceof Error)) return error;
  const message = namer.show(error.message);
  if (message === error.message && namer.show(error.stack ?? '') === error.stack) return error;
  const copy = new Error(message);
  copy.stack = namer.show(error.stack ?? '');
  return copy;
}

async function attachExchanges(
  testInfo: TestInfo,
  name: string,
  exchanges: readonly Exchange[],
  namer: KeyNamer,
): Promise<void> {
  if (exchanges.length === 0) return;
  await testInfo.attach(name, {
    body: JSON.stringify(exchanges.map((exchange) => recordExchange(exchange, namer))),
    contentType: 'application/json',
  });
}

/** A worker's learning exchanges belong to no rule: the first test of the worker carries them. */
const learningAttached = new WeakSet<Exchange[]>();
async function attachLearningOnce(
  testInfo: TestInfo,
  learningExchanges: Exchange[],
  namer: KeyNamer,
  knowledge: Knowledge,
): Promise<void> {
  if (learningAttached.has(learningExchanges)) return;
  learningAttached.add(learningExchanges);
  await attachExchanges(testInfo, ANNOTATION.learningExchanges, learningExchanges, namer);
  // A keyless request that got data is a failure wherever the suite sees it: the reporter fails
  // AUTH-MISSING-HEADER with it, though no rule's test sent that request.
  const leak = knowledge.servedWithoutKey;
  if (leak)
    await testInfo.attach(ANNOTATION.learningLeak, {
      body: JSON.stringify({
        message: namer.show(
          `A request without Authorization, sent to learn the tenants' data, was served ${leak.tenant}'s data: ${leak.values.map((value) => JSON.stringify(value)).join(', ')}. A keyless request that gets data is a failure wherever the suite sees it.`,
        ),
        evidence: [new Checks(namer).evidence(leak.exchange)],
        leak: true,
      }),
      contentType: 'application/json',
    });
}

async function recordEvidence(testInfo: TestInfo, failure: ConformanceFailure): Promise<void> {
  // The evidence was redacted when it was made (Checks.evidence); it is attached as it is.
  await testInfo.attach(ANNOTATION.evidence, {
    body: JSON.stringify(
      { message: failure.message, evidence: failure.evidence, ...(failure.leak ? { leak: true } : {}) },
      null,
      2,
    ),
    contentType: 'application/json',
  });
}

function declaredCredential(target: ResolvedTarget, needs: readonly Input[], name: CredentialName): string {
  const value = target.credentials[name];
  if (!needs.includes(`credentials.${name}`) || value === undefined) {
    throw new Error(
      `Defect in the suite: a rule used credentials.${name} without declaring it in its needs.`,
    );
  }
  return value;
}

function declaredUrl(
  target: ResolvedTarget,
  needs: readonly Input[],
  name: 'otherTenantBaseUrl' | 'sandboxBaseUrl',
): string {
  const value = target[name];
  if (!needs.includes(name) || value === undefined) {
    throw new Error(`Defect in the suite: a rule used ${name} without declaring it in its needs.`);
  }
  return value;
}

export { expect } from '@playwright/test';
