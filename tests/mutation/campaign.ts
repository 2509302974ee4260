// One mutation campaign: the clean reference server and each faulty variant of
// reference-server/faults.ts, each started on free ports and checked by the conformance suite
// through a target file (URL mode), a few at a time. Every run uses the strict profile, so that a
// failed HTTP rule fails its test like a failed MUST rule; the default profile's verdict follows
// from the same rule verdicts (verdict.ts), since a MUST rule fails alike under both. What a run
// found is read from the conformance reporter's JSON report (reports/conformance.json).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RULES, type RuleId } from '../../conformance/rules.ts';
import { fixtureKeyEnvironment, fixtureKeyVariable } from '../../conformance/target.ts';
import { FAULT_NAMES, type FaultName } from '../../reference-server/faults.ts';
import { DEFAULT_FIXTURES_FILE, loadFixtures } from '../../reference-server/fixtures.ts';
import { startReferenceServer, type RunningReferenceServer } from '../../reference-server/server.ts';
import { ensureCertificates } from '../../reference-server/tls.ts';
import type { ConformanceReport, RuleVerdict } from '../../schemas/generated/conformance-report.ts';
import { runConformance } from '../support/conformance-run.ts';

export type VariantName = 'clean' | FaultName;

/**
 * What became of a rule in one run: failed (a MUST or HTTP rule; strict profile), warned (an
 * ADVISORY rule that failed), not evaluated (for lack of an input or of tenant data), passed;
 * `error` when its check could not run (a defect, a time-out), `missing` when the run wrote no
 * report.
 */
export type RuleResult = 'passed' | 'failed' | 'warned' | 'not-evaluated' | 'error' | 'missing';

const RESULT_OF_VERDICT: Record<RuleVerdict, RuleResult> = {
  pass: 'passed',
  fail: 'failed',
  warning: 'warned',
  'not-evaluated': 'not-evaluated',
  error: 'error',
};

export interface VariantRun {
  variant: VariantName;
  exitCode: number;
  results: Record<RuleId, RuleResult>;
  /** Why a rule failed, warned or was not evaluated, as the report says it (redacted by the suite). */
  messages: Partial<Record<RuleId, string>>;
  /** The overall verdict the reporter wrote (strict profile), if it wrote a report. */
  reportedVerdict: ConformanceReport['verdict'] | undefined;
  /** The preflight stage that stopped the run (verdict SETUP ERROR), if one did. */
  setupStage?: string;
  /** The run's stderr when it wrote no report: why it did not run. */
  stderr: string;
}

export interface CampaignOptions {
  /** How many variants are checked at once (each is one Playwright run with one worker). */
  concurrency?: number;
  /** Called after each variant, e.g. to log progress. */
  onRun?: (run: VariantRun, done: number, total: number) => void;
}

export const VARIANTS: readonly VariantName[] = ['clean', ...FAULT_NAMES];

/** 2–3 runs at a time suit 2 cores: each run is mostly waiting on the server and start-up. */
export const DEFAULT_CONCURRENCY = 3;
/** Bound of one variant's run (start, suite, stop); a run normally takes seconds. */
const RUN_TIMEOUT_MS = 300_000;

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
  const certDir = join(work, 'certs');
  const fixtures = loadFixtures(DEFAULT_FIXTURES_FILE);
  // Made once before the runs start, so that concurrent start-ups only ever read them.
  await ensureCertificates(certDir, 'localhost');
  let done = 0;
  return pooled(variants, options.concurrency ?? DEFAULT_CONCURRENCY, async (variant) => {
    const server = await startReferenceServer({
      host: '127.0.0.1',
      httpsPort: 0,
      httpPort: 0,
      domain: 'localhost',
      fixtures,
      certDir,
      ...(variant === 'clean' ? {} : { fault: variant }),
    });
    try {
      const targetFile = join(work, `${variant}.target.json`);
      writeFileSync(targetFile, JSON.stringify(targetOf(variant, server), null, 2));
      const run = await runConformance(
        ['--target', targetFile, '--profile', 'strict', '--workers=1'],
        fixtureKeyEnvironment(),
        RUN_TIMEOUT_MS,
      );
      // Only what the report says is kept: its directory (HTML report and all) goes.
      rmSync(run.reportDir, { recursive: true, force: true });
      const result: VariantRun = {
        variant,
        exitCode: run.exitCode,
        ...resultsOf(run.report),
        reportedVerdict: run.report?.verdict,
        ...(run.report?.verdict === 'SETUP ERROR'
          ? { setupStage: run.report.setupProblems?.[0]?.stage }
          : {}),
        stderr: run.report ? '' : run.stderr,
      };
      options.onRun?.(result, ++done, variants.length);
      return result;
    } finally {
      await server.close();
    }
  }).finally(() => rmSync(work, { recursive: true, force: true }));
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
  const results = Object.fromEntries(RULES.map((rule) => [rule.id, 'missing'])) as Record<RuleId, RuleResult>;
  const messages: VariantRun['messages'] = {};
  for (const rule of report?.rules ?? []) {
    const id = rule.id as RuleId;
    if (!(id in results)) continue;
    results[id] = RESULT_OF_VERDICT[rule.verdict];
    if (rule.message !== undefined && rule.verdict !== 'pass') messages[id] = rule.message;
  }
  return { results, messages };
}

/** Runs `work` on every item, at most `limit` at a time, keeping the order of `items`. */
async function pooled<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, lane));
  return results;
}
