// The plan of a batch run: several variants checked in ONE Playwright run, a share of them per
// project and worker (mutation/batch.config.ts), instead of one `npm run conformance` per variant. The campaign
// writes it; the config and the batch reporter read it. Each variant carries what the runner and
// the set-up project give a run of its own: its CONFORMANCE_* variables (target file, profile, the
// preflight's result, the answer watch, the outcome file) and the report metadata the config
// would derive from its target.
import { readFileSync } from 'node:fs';
import { ENV, handOver, type Environment } from '../conformance/env.ts';
import type { RunMetadata } from '../conformance/report/run-metadata.ts';
import type { TargetDeclaration } from '../conformance/deployment/target.ts';
import type { Protocol } from '../conformance/requests/protocols.ts';

export interface BatchVariant {
  /** Names the describe its rules are registered under (conformance/run/batch-variants.ts). */
  name: string;
  /** The run's CONFORMANCE_* variables, as `npm run conformance` and its set-up project set them. */
  environment: Record<string, string>;
  /** The variant's target as the suite's config would declare it (no keys: variable names). */
  declaredTarget: TargetDeclaration;
  metadata: RunMetadata;
  /** Where this variant's conformance.json and conformance.md go. */
  reportDir: string;
  /**
   * The protocols every rule is checked over, a project each as in a run of its own (its settings'
   * `protocols` say the same); HTTP/1.1 alone when absent, as the campaign's variants are.
   */
  protocols?: Protocol[];
  /** The text of its run's `--grep`: its run is the tests it matches alone (every rule without one). */
  grep?: string;
  /** Its run's `--retries`: how often Playwright re-runs a rule that failed (none without it). */
  retries?: number;
}

export interface BatchPlan {
  workers: number;
  /** NODE_EXTRA_CA_CERTS for the workers: the CA every variant's certificates chain to. */
  caFile: string;
  /** Playwright's output directory (attachments of failed tests). */
  outputDir: string;
  /** A rule that fails keeps its worker, as in the `run` command: for runs whose failures are not known ahead. */
  failedRulesKeepWorker?: boolean;
  variants: BatchVariant[];
}

/**
 * Where, in a variant's report directory, the batch reporter keeps what the variant's conformance
 * reporter printed at its end: the summary a run of its own prints, verdict line and all.
 */
export const BATCH_CONSOLE_FILE = 'console.txt';

/** The plan's file, in the campaign's own directory (removed when the campaign ends). */
export function batchPlanFile(env?: Environment): string {
  const file = handOver('batchPlan', env);
  if (!file) throw new Error(`${ENV.batchPlan} names no plan: this config is run by mutation/campaign.ts`);
  return file;
}

export function readBatchPlan(env?: Environment): BatchPlan {
  return JSON.parse(readFileSync(batchPlanFile(env), 'utf8')) as BatchPlan;
}
