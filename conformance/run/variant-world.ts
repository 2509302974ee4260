// What a worker holds of one run's target (conformance/run/test.ts): the target bound to its keys,
// the clients, the connect proxy and the tenants' data it learned. A conformance run's worker
// serves one such run, given by its project's options. The mutation campaign's batch
// (mutation/batch.config.ts) has a worker serve several variants, each a run of its own given to
// its tests as the `batchVariants` and `batchVariantName` options (batch-variants.ts): Playwright
// starts a worker per project and per set of worker options, and a process per variant cost more
// than the variants' checks. So a worker keeps a world per run it serves, made when that run's
// first test needs it, and enters it before each test: the process-wide hand-overs and settings
// are that run's while its test runs.
//
// What the world knows of the tenants is what the run's set-up project learned (project-setup.ts),
// read from the run's state directory: a worker Playwright starts after a failed test sends none
// of the learning requests again. A run without a set-up project (the mutation campaign's batch)
// learns in the world, once per worker.
//
// A world's proxy, clients and learning, once failed, stay failed for the worker's life: such a
// failure fails the test before its body can mark it expected to fail, and Playwright replaces a
// worker after an unexpected failure — with its worlds, as it did the worker fixtures they replace.
import type { APIRequest } from '@playwright/test';
import { ApiClient, type Api } from '../requests/api-client.ts';
import { RawApi } from '../requests/raw-api.ts';
import type { Protocol } from '../requests/protocols.ts';
import { useRunSettings, type RunSettings } from '../settings.ts';
import { startConnectProxy } from '../requests/connect-proxy.ts';
import { RawClient } from '../requests/raw-client.ts';
import { keyNamerFor, type KeyNamer } from '../redaction/shown-keys.ts';
import type { Exchange } from '../requests/exchange.ts';
import { bindTarget } from './run-target.ts';
import type { ResolvedTarget, TargetDeclaration } from '../deployment/target.ts';
import { learnTenants, type Knowledge } from '../judging/knowledge.ts';
import { preflightFromEnvironment } from './preflight-state.ts';
import { knowledgeKey, readProjectState, readRunKnowledge } from './project-state.ts';
import { knowledgeOfRecord } from '../judging/knowledge-record.ts';
import { startEmbeddedInThisWorker } from './projects.ts';
import type { DeclaredUrl, PreflightProblem } from '../deployment/preflight.ts';
import { setHandOvers, removeHandOvers, inputEnvironment } from '../env.ts';

/** One run a worker serves: what a rule project's options (test.ts) say of it. */
export interface RunOptions {
  runSettings: Readonly<RunSettings> | undefined;
  runEnvironment: Readonly<Record<string, string>> | undefined;
  declaredTarget: TargetDeclaration | undefined;
  protocol: Protocol;
}

interface WorldParts {
  settings: Readonly<RunSettings>;
  knowledgeKey: string;
  environment: Readonly<Record<string, string>>;
  target: ResolvedTarget;
  protocol: Protocol;
}

/** One run's state in this worker; the parts that send (proxy, clients, learning) made when first asked. */
export class VariantWorld {
  readonly settings: Readonly<RunSettings>;
  readonly target: ResolvedTarget;
  /** Declared URLs the preflight could not reach: the rules that need them are not evaluated. */
  readonly unreachable: ReadonlyMap<DeclaredUrl, PreflightProblem>;
  /** One per run: it reads the target's CA file once, not once per rule. */
  readonly raw: RawClient;
  readonly namer: KeyNamer;
  /** Names the run's knowledge file (project-state.ts): its declared target and settings. */
  readonly knowledgeKey: string;
  /** The exchanges by which this worker learned the tenants' data (see knowledge.ts). */
  readonly learningExchanges: Exchange[] = [];
  readonly #environment: Readonly<Record<string, string>>;
  readonly #request: APIRequest;
  readonly #closers: (() => Promise<void>)[] = [];
  #proxyUrl: Promise<string | undefined> | undefined;
  #knowledge: Promise<Knowledge> | undefined;

  private constructor(
    { settings, knowledgeKey, environment, target, protocol }: WorldParts,
    request: APIRequest,
  ) {
    this.settings = settings;
    this.knowledgeKey = knowledgeKey;
    this.#environment = environment;
    this.target = target;
    this.#request = request;
    const problems = preflightFromEnvironment()?.unavailable ?? [];
    this.unreachable = new Map(
      problems.flatMap((problem) => (problem.field ? [[problem.field, problem]] : [])),
    );
    this.raw = new RawClient({
      hosts: target.hosts,
      caFile: target.caFile,
      protocol,
      timeoutMs: settings.requestTimeoutMs,
    });
    this.namer = keyNamerFor(target);
  }

  /** The run's world, its hand-overs and settings this process's from here on (see `enter`). */
  static async open(options: RunOptions, request: APIRequest): Promise<VariantWorld> {
    const { runSettings, runEnvironment = {}, declaredTarget } = options;
    if (!runSettings) throw new Error('No runSettings option: run the suite with its config.');
    const environment = VariantWorld.#applyEnvironment(runEnvironment);
    useRunSettings(runSettings);
    if (!declaredTarget) throw new Error('No declaredTarget option: run the suite with its config.');
    const server = declaredTarget.mode === 'embedded' ? await startEmbeddedInThisWorker() : undefined;
    const target = bindTarget(declaredTarget, inputEnvironment());
    const { protocol } = options;
    const world = new VariantWorld(
      {
        settings: runSettings,
        knowledgeKey: knowledgeKey(declaredTarget, runSettings),
        environment,
        target,
        protocol,
      },
      request,
    );
    if (server) world.#closers.push(() => server.close());
    return world;
  }

  /**
   * Makes this run's hand-overs and settings the process's, for its next test: the request layer
   * and the answer watch read them there (a worker that serves one run enters it once).
   */
  enter(): void {
    setHandOvers(this.#environment);
    useRunSettings(this.settings);
  }

  /** Takes back its hand-overs, so that none is read as another run's that does not set it. */
  leave(): void {
    removeHandOvers(Object.keys(this.#environment));
  }

  get proxyUrl(): Promise<string | undefined> {
    this.#proxyUrl ??= this.#startProxy();
    return this.#proxyUrl;
  }

  get knowledge(): Promise<Knowledge> {
    this.#knowledge ??= this.#learn();
    return this.#knowledge;
  }

  /** A client for one test, its exchanges given to `listener`; closed with `close`'s result. */
  async newApi(listener: (exchange: Exchange) => void): Promise<{ api: Api; close: () => Promise<void> }> {
    if (this.raw.protocol === 'h2')
      return { api: new RawApi(this.raw.listening(listener)), close: async () => {} };
    const proxyUrl = await this.proxyUrl;
    const context = await this.#request.newContext(proxyUrl ? { proxy: { server: proxyUrl } } : {});
    return { api: new ApiClient(context, listener), close: () => context.dispose() };
  }

  /** Stops what the world started, the last started first (as Playwright tears fixtures down). */
  async close(): Promise<void> {
    for (const close of this.#closers.reverse()) await close();
  }

  /** Its hand-overs, with what the set-up project found (project-setup.ts): preflight, minted keys. */
  static #applyEnvironment(runEnvironment: Readonly<Record<string, string>>): Record<string, string> {
    // Hand-overs, not settings: set before anything reads them (the preflight's result, the answer watch).
    setHandOvers(runEnvironment);
    const environment = { ...runEnvironment, ...readProjectState()?.env };
    setHandOvers(environment);
    return environment;
  }

  async #startProxy(): Promise<string | undefined> {
    if (Object.keys(this.target.hosts).length === 0) return undefined;
    const proxy = await startConnectProxy(this.target.hosts);
    this.#closers.push(() => proxy.close());
    return proxy.url;
  }

  async #learn(): Promise<Knowledge> {
    const learned = readRunKnowledge(this.knowledgeKey);
    if (learned) return knowledgeOfRecord(learned);
    // Nothing is asked of a URL the preflight could not reach: its rules are not evaluated.
    const reachable = { ...this.target };
    for (const field of this.unreachable.keys()) if (field !== 'baseUrl') delete reachable[field];
    const bounds = { maxPages: this.settings.maxListPages, maxRecords: this.settings.maxListRecords };
    // The learning's client, its exchanges kept in `learningExchanges`, is closed once the
    // learning is done: Playwright starts and stops tracing on every request context still open
    // at each test's start and end (a stack captured per call), so a context left open costs
    // every later test of the worker — of each variant it serves, in the mutation campaign's batch.
    const { api, close } = await this.newApi((exchange) => this.learningExchanges.push(exchange));
    try {
      return await learnTenants(api, reachable, bounds);
    } finally {
      await close();
    }
  }
}

/** The runs a worker serves: one for a conformance run, each batch variant it was given for the batch. */
export class VariantWorlds {
  readonly #worlds = new Map<string, Promise<VariantWorld>>();
  #entered: { key: string; world: VariantWorld } | undefined;

  constructor(private readonly request: APIRequest) {}

  /** The run named `key`, opened on its first test, entered for this one. */
  async enter(key: string, options: RunOptions): Promise<VariantWorld> {
    if (this.#entered?.key !== key) {
      this.#entered?.world.leave();
      this.#entered = undefined;
    }
    let world = this.#worlds.get(key);
    if (!world) {
      // Opening sets the process's hand-overs and settings (entering it).
      world = VariantWorld.open(options, this.request);
      this.#worlds.set(key, world);
      // A run that could not be opened is tried again by its next test, as by a new worker.
      world.catch(() => this.#worlds.delete(key));
    }
    const opened = await world;
    if (this.#entered === undefined) opened.enter();
    this.#entered = { key, world: opened };
    return opened;
  }

  async close(): Promise<void> {
    for (const world of [...this.#worlds.values()].reverse())
      await (await world.catch(() => undefined))?.close();
  }
}
