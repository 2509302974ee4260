// One mutation campaign: the clean reference server and each faulty variant of the fault catalog
// (catalog.ts), each started on free ports in this process and checked by the
// conformance suite through a target file (URL mode). Every run uses the strict profile, so that a
// failed HTTP rule fails its test like a failed MUST rule; the default profile's verdict follows
// from the same rule verdicts (verdict.ts), since a MUST rule fails alike under both. What a run
// found is read from the conformance reporter's JSON report (conformance.json).
//
// Most variants are checked in one batch: ONE Playwright run whose few workers share the variants
// (batch.config.ts), each variant with its own run environment and its own conformance reporter
// (batch-reporter.ts), after the campaign has run each variant's preflight as the set-up project
// would. That spares a runner, a Playwright start-up and a worker process per variant; and a rule
// that fails keeps its worker, as in the `run` command (failed-rules-keep-worker.ts). The catalog's
// expected failures are not given to the suite ahead: a rule a fault fails only by the run's
// checker (at the run's end) passes its test, and a test expected to fail that passes is, to
// Playwright, an unexpected outcome after which it replaces the worker (one restart per campaign,
// its share's remaining variants opened and learned again).
// The runner itself (`npm run conformance`) checks the clean server, one faulty variant, and any
// variant whose preflight fails (the runner stops those with SETUP ERROR); the clean server and
// that faulty variant are in the batch too, and the test requires both ways to read the same.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readRunSettings } from '../conformance/settings.ts';
import { runPreflight, type PreflightResult } from '../conformance/deployment/preflight.ts';
import { RULES, type RuleId } from '../conformance/catalog/rules.ts';
import { ENV, inputEnvironment } from '../conformance/env.ts';
import { bindTarget } from '../conformance/run/run-target.ts';
import { declareTarget, type TargetDeclaration } from '../conformance/deployment/target.ts';
import { fixtureKeyEnvironment, fixtureKeyVariable } from '../conformance/deployment/embedded-target.ts';
import { FAULT_NAMES, faultySteps, type FaultName } from './catalog.ts';
import { DEFAULT_FIXTURES_FILE, loadFixtures } from '../reference-server/store/fixtures.ts';
import { startReferenceServer, type RunningReferenceServer } from '../reference-server/server.ts';
import { ensureCertificates } from '../reference-server/listeners/certificates.ts';
import type { ConformanceReport, RuleVerdict } from '../schemas/generated/conformance-report.ts';
import { runSuite } from './suite-run.ts';
import { runBatch, type BatchEntry, type BatchOptions } from './batch-run.ts';

export type VariantName = 'clean' | FaultName;

type FixtureKeys = Readonly<Record<string, string>>;

export interface VariantRun {
  variant: VariantName;
  exitCode: number;
  /** Each rule's verdict in the run's report; a rule is absent when the run wrote no report. */
  results: Partial<Record<RuleId, RuleVerdict>>;
  /** Why a rule failed, warned or was not evaluated, as the report says it (redacted by the suite). */
  messages: Partial<Record<RuleId, string>>;
  /** The overall verdict the reporter wrote (strict profile), if it wrote a report. */
  reportedVerdict: ConformanceReport['verdict'] | undefined;
  /**
   * Why the report says the run is partial (its scope): over HTTP/1.1 alone against servers that
   * offer HTTP/2 too, so under strict the clean server's verdict is INCOMPLETE, not CONFORMANT.
   */
  partial: readonly string[];
  /** The preflight stage that stopped the run (verdict SETUP ERROR), if one did. */
  setupStage?: string;
  /** The run's stderr when it wrote no report: why it did not run. */
  stderr: string;
  /** How the variant was checked: by `npm run conformance`, or in the batch. */
  via: 'runner' | 'batch';
  /** For a variant the runner checked and the batch too: the batch's run, to compare. */
  batchTwin?: VariantRun;
}

export interface CampaignOptions {
  /** How many variants are checked at once (Playwright workers of the batch, one variant at a time each). */
  concurrency?: number;
  /** Called after each variant, e.g. to log progress. */
  onRun?: (run: VariantRun, done: number, total: number) => void;
  /**
   * The command that starts the kit's CLI for the variants checked by the runner (suite-run.ts's
   * `kitCommand()` by default: these sources). The repository's tests give the compiled kit, which
   * they check everywhere else too: what a user runs, without compiling TypeScript in each process.
   */
  kitCommand?: readonly string[];
}

export const VARIANTS: readonly VariantName[] = ['clean', ...FAULT_NAMES];

/** 2–3 variants at a time suit 2 cores: each is mostly waiting on its server and on start-up. */
export const DEFAULT_CONCURRENCY = 3;
/** Bound of one variant's run by the runner (start, suite, stop); a run normally takes seconds. */
const RUN_TIMEOUT_MS = 300_000;
/**
 * Bound of the batch, every variant in it; it takes a few minutes, but beside the other test files
 * on a loaded 2-core machine it has taken 893 s (load average 25) and more than 900 s (load 35):
 * the bound only stops a batch that hangs, so it leaves room for a slow one.
 */
const BATCH_TIMEOUT_MS = 1_500_000;
/**
 * Checked by the runner besides the clean server, and in the batch too: a variant that fails
 * MUST rules (a listed consequence among them), so that both ways are compared on failures.
 */
export const RUNNER_CHECKED_FAULT: FaultName = 'unknown-key-as-anonymous';

/**
 * Every variant's server answers from this one process, beside the batch's workers and, under
 * `npm test`, two other test files: on a busy machine an answer can take longer than the default
 * 10 s without any fault in the variant. The faults are about what a server answers, never about
 * how fast, so a longer limit changes no verdict the campaign expects and spares a false "broke".
 */
const CAMPAIGN_REQUEST_TIMEOUT_SECONDS = '30';

const HOST_MAP = { '*.localhost': '127.0.0.1' };
const TENANT = 'acme';
const OTHER_TENANT = 'globex';

/** The fixture key each credential of the target file names (fixtures/reference.json). */
const CREDENTIAL_KEY_IDS = {
  fullAccess: 'key_acme_prod_full',
  readOnly: 'key_acme_prod_read',
  noCustomersPermission: 'key_acme_prod_no_customers',
  revoked: 'key_acme_prod_revoked',
  sandbox: 'key_acme_dev_full',
  otherTenant: 'key_globex_prod_full',
  probe: 'key_acme_prod_full',
} as const;

export async function runCampaign(
  variants: readonly VariantName[] = VARIANTS,
  options: CampaignOptions = {},
): Promise<VariantRun[]> {
  const work = mkdtempSync(join(tmpdir(), 'mutation-campaign-'));
  // The fixtures' public test keys, read once for every run of the campaign.
  const keys: FixtureKeys = fixtureKeyEnvironment();
  const strictEnv = {
    ...inputEnvironment(),
    ...keys,
    [ENV.profile]: 'strict',
    [ENV.requestTimeout]: CAMPAIGN_REQUEST_TIMEOUT_SECONDS,
  };
  const certDir = join(work, 'certs');
  const fixtures = loadFixtures(DEFAULT_FIXTURES_FILE);
  // Made once before the servers start, so that they only ever read them.
  const { caPath } = await ensureCertificates(certDir, 'localhost');
  const servers = new Map<VariantName, RunningReferenceServer>();
  let done = 0;
  const report = (run: VariantRun): VariantRun => {
    options.onRun?.(run, ++done, variants.length);
    return run;
  };
  try {
    for (const variant of variants) {
      const server = await startReferenceServer({
        host: '127.0.0.1',
        httpsPort: 0,
        httpPort: 0,
        domain: 'localhost',
        fixtures,
        certDir,
        // As the embedded server (playwright.config.ts): its lists page, so the rules on pages apply.
        customersPageSize: 2,
        steps: faultySteps(variant === 'clean' ? undefined : variant, fixtures),
      });
      servers.set(variant, server);
      writeFileSync(targetFileOf(work, variant), JSON.stringify(targetOf(variant, server), null, 2));
    }
    // Each target file read and checked once: the preflight binds it to the keys, the batch hands
    // the declaration to its project.
    const declared = new Map(
      variants.map(
        (variant) =>
          [
            variant,
            declareTarget(targetFileOf(work, variant), strictEnv, 'file', readRunSettings(strictEnv).profile),
          ] as const,
      ),
    );
    const preflights = new Map<VariantName, PreflightResult>();
    for (const [variant, target] of declared) preflights.set(variant, await preflightOf(target, strictEnv));
    const batched = variants.filter((variant) => preflights.get(variant)?.ok);
    const byRunner = variants.filter(
      (variant) => variant === 'clean' || variant === RUNNER_CHECKED_FAULT || !batched.includes(variant),
    );
    const [runnerRuns, batchRuns] = await Promise.all([
      sequentially(byRunner, (variant) => runByRunner(work, variant, keys, options.kitCommand)),
      runVariantsBatched(work, batched, declared, preflights, keys, {
        workers: options.concurrency ?? DEFAULT_CONCURRENCY,
        caFile: caPath,
      }),
    ]);
    return variants.map((variant) => {
      const batchRun = batchRuns.get(variant);
      const runnerRun = runnerRuns.get(variant);
      if (runnerRun) return report(batchRun ? { ...runnerRun, batchTwin: batchRun } : runnerRun);
      return report(batchRun as VariantRun);
    });
  } finally {
    for (const server of servers.values()) await server.close();
    rmSync(work, { recursive: true, force: true });
  }
}

function targetFileOf(work: string, variant: VariantName): string {
  return join(work, `${variant}.target.json`);
}

/** The run's environment as the runner sets it for `--target FILE --profile strict`. */
function runnerEnvironment(work: string, variant: VariantName): Record<string, string> {
  return {
    [ENV.targetFile]: targetFileOf(work, variant),
    [ENV.profile]: 'strict',
    [ENV.requestTimeout]: CAMPAIGN_REQUEST_TIMEOUT_SECONDS,
  };
}

/** The preflight of a variant, as the set-up project runs it before any rule. */
async function preflightOf(target: TargetDeclaration, env: NodeJS.ProcessEnv): Promise<PreflightResult> {
  return runPreflight(bindTarget(target, env), readRunSettings(env).requestTimeoutMs);
}

async function runByRunner(
  work: string,
  variant: VariantName,
  keys: FixtureKeys,
  kit: readonly string[] | undefined,
): Promise<VariantRun> {
  // Over HTTP/1.1, as the batch: the faults are the same over both protocols, and the rules of
  // HTTP/2's own speak HTTP/2 in either (decision 0021). Twice the requests would buy nothing, so
  // the runs are partial (HTTP/2 offered, not checked for every rule), and their strict verdict at
  // best INCOMPLETE (decision 0024); the campaign judges the rule verdicts.
  const run = await runSuite(
    [
      '--target',
      targetFileOf(work, variant),
      '--profile',
      'strict',
      '--workers=1',
      '--protocols',
      'h1',
      '--request-timeout',
      CAMPAIGN_REQUEST_TIMEOUT_SECONDS,
    ],
    keys,
    RUN_TIMEOUT_MS,
    kit,
  );
  // Only what the report says is kept: its directory (HTML report and all) goes.
  rmSync(run.reportDir, { recursive: true, force: true });
  return variantRun(variant, 'runner', run.exitCode, run.report, run.stderr);
}

/** Every variant of `variants` in one Playwright run, `workers` at a time, a share of them each. */
async function runVariantsBatched(
  work: string,
  variants: readonly VariantName[],
  declared: ReadonlyMap<VariantName, TargetDeclaration>,
  preflights: ReadonlyMap<VariantName, PreflightResult>,
  keys: FixtureKeys,
  { workers, caFile }: Pick<BatchOptions, 'workers' | 'caFile'>,
): Promise<Map<VariantName, VariantRun>> {
  const entries = variants.map((variant): BatchEntry => ({
    name: variant,
    environment: runnerEnvironment(work, variant),
    declared: declared.get(variant) as TargetDeclaration,
    preflight: preflights.get(variant) as PreflightResult,
  }));
  const runs = await runBatch(work, entries, keys, {
    workers,
    caFile,
    failedRulesKeepWorker: true,
    timeoutMs: BATCH_TIMEOUT_MS,
  });
  return new Map(
    [...runs].map(([name, run]) => {
      const variant = name as VariantName;
      return [variant, variantRun(variant, 'batch', run.exitCode, run.report, run.stderr)];
    }),
  );
}

function variantRun(
  variant: VariantName,
  via: VariantRun['via'],
  exitCode: number,
  report: ConformanceReport | undefined,
  stderr: string,
): VariantRun {
  return {
    variant,
    via,
    exitCode,
    ...resultsOf(report),
    reportedVerdict: report?.verdict,
    partial: report?.scope?.partial ?? [],
    ...(report?.verdict === 'SETUP ERROR' ? { setupStage: report.setupProblems?.[0]?.stage } : {}),
    stderr: report ? '' : stderr,
  };
}

function targetOf(variant: VariantName, server: RunningReferenceServer): object {
  return {
    name: `reference server, ${variant === 'clean' ? 'no fault' : `fault ${variant}`}`,
    baseUrl: server.baseUrl(TENANT),
    otherTenantBaseUrl: server.baseUrl(OTHER_TENANT),
    sandboxBaseUrl: server.baseUrl(TENANT, 'sandbox'),
    plainHttpBaseUrl: server.plainHttpBaseUrl(TENANT),
    credentials: Object.fromEntries(
      Object.entries(CREDENTIAL_KEY_IDS).map(([name, keyId]) => [name, fixtureKeyVariable(keyId)]),
    ),
    caFile: server.caPath,
    hosts: HOST_MAP,
  };
}

function resultsOf(report: ConformanceReport | undefined): Pick<VariantRun, 'results' | 'messages'> {
  const results: VariantRun['results'] = {};
  const messages: VariantRun['messages'] = {};
  const known = new Set<string>(RULES.map((rule) => rule.id));
  for (const rule of report?.rules ?? []) {
    const id = rule.id as RuleId;
    if (!known.has(id)) continue;
    results[id] = rule.verdict;
    if (rule.message !== undefined && rule.verdict !== 'pass') messages[id] = rule.message;
  }
  return { results, messages };
}

/** Runs `work` on each item in turn; the results by item. */
async function sequentially<T, R>(items: readonly T[], work: (item: T) => Promise<R>): Promise<Map<T, R>> {
  const results = new Map<T, R>();
  for (const item of items) results.set(item, await work(item));
  return results;
}
