// Several runs of the suite in ONE Playwright run (batch.config.ts): each run a target already
// declared and preflighted, with its own environment, report directory and outcome file, as a run
// of its own would have them. The mutation campaign checks its variants this way; the repository's
// tests check several independent deployments of one test file this way (tests/support/
// batched-runs.ts), sparing each a runner, a set-up project and worker processes.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ENV, handOverVariables, inputEnvironment } from '../conformance/env.ts';
import type { PreflightResult } from '../conformance/deployment/preflight.ts';
import type { TargetDeclaration } from '../conformance/deployment/target.ts';
import type { Protocol } from '../conformance/requests/protocols.ts';
import { runMetadataOf } from '../conformance/run/run-target.ts';
import { exitCodeOf } from '../conformance/run/exit-code.ts';
import type { ConformanceReport } from '../schemas/generated/conformance-report.ts';
import type { BatchPlan, BatchVariant } from './batch-plan.ts';
import { BATCH_CONSOLE_FILE } from './batch-plan.ts';
import { readReport, REPO_ROOT, runBounded } from './suite-run.ts';

/** One run of a batch: what the runner and the set-up project would have given a run of its own. */
export interface BatchEntry {
  name: string;
  /** The run's settings and target as CONFORMANCE_* variables (target file, profile, …). */
  environment: Record<string, string>;
  declared: TargetDeclaration;
  preflight: PreflightResult;
  /** The protocols its rules are checked over (its environment's settings say the same); default h1. */
  protocols?: readonly Protocol[];
  /** Its run's `--grep` and `--retries`, as the `run` command passes them to Playwright. */
  grep?: string;
  retries?: number;
}

/** What one run of the batch wrote, as a run of its own would have. */
export interface BatchRunResult {
  exitCode: number;
  report: ConformanceReport | undefined;
  reportDir: string;
  /** What its conformance reporter printed at the end (the summary and verdict lines). */
  console: string;
  /** The batch's output, for a run that wrote no report: why it did not run. */
  stderr: string;
}

export interface BatchOptions extends Pick<BatchPlan, 'workers' | 'caFile'> {
  /**
   * A rule that fails keeps its worker, as in the `run` command (the mutation campaign, a test's
   * batch of deployments): Playwright replaces a worker after every unexpected outcome.
   */
  failedRulesKeepWorker?: boolean;
  timeoutMs: number;
}

/**
 * Every entry in one Playwright run, `workers` at a time, a share of them each; `keys` holds every
 * entry's key variables (their names distinct across entries). Its files go under `work`.
 */
export async function runBatch(
  work: string,
  entries: readonly BatchEntry[],
  keys: Readonly<Record<string, string>>,
  { workers, caFile, failedRulesKeepWorker = false, timeoutMs }: BatchOptions,
): Promise<Map<string, BatchRunResult>> {
  if (entries.length === 0) return new Map();
  // A variant's grep is case-insensitive, as `--grep` is: it would match another's describe.
  const names = entries.map((entry) => entry.name.toLowerCase());
  const twice = names.find((name, index) => names.indexOf(name) !== index);
  if (twice !== undefined)
    throw new Error(`Two runs of one batch are named ${twice} but for case: name them apart.`);
  const batchDir = join(work, 'batch');
  const plan: BatchPlan = {
    workers,
    caFile,
    failedRulesKeepWorker,
    outputDir: join(batchDir, 'test-results'),
    variants: entries.map((entry): BatchVariant => {
      const dir = join(batchDir, entry.name);
      mkdirSync(dir, { recursive: true });
      return {
        name: entry.name,
        environment: {
          ...entry.environment,
          [ENV.preflight]: JSON.stringify(entry.preflight),
          [ENV.answerWatchFile]: join(dir, 'consecutive-no-answers'),
          // Its own pace, as a run of its own has (conformance/run/projects.ts): a worker serving
          // several variants would otherwise pace them all as one run.
          [ENV.trafficFile]: join(dir, 'traffic.json'),
          [ENV.outcomeFile]: join(dir, 'outcome.json'),
        },
        declaredTarget: entry.declared,
        metadata: runMetadataOf(entry.declared, false, inputEnvironment()),
        reportDir: join(dir, 'reports'),
        ...(entry.protocols ? { protocols: [...entry.protocols] } : {}),
        ...(entry.grep !== undefined ? { grep: entry.grep } : {}),
        ...(entry.retries !== undefined ? { retries: entry.retries } : {}),
      };
    }),
  };
  const planFile = join(work, 'batch-plan.json');
  writeFileSync(planFile, JSON.stringify(plan, null, 2));
  const batch = await runBounded(
    join(REPO_ROOT, 'node_modules', '.bin', 'playwright'),
    ['test', '--config', join(import.meta.dirname, 'batch.config.ts')],
    { ...keys, ...handOverVariables({ batchPlan: planFile }) },
    timeoutMs,
  );
  return new Map(
    plan.variants.map(({ name, environment, reportDir }) => {
      const report = readReport(join(reportDir, 'conformance.json'));
      // Read as the runner reads it: without an outcome the run broke.
      const exitCode = exitCodeOf(environment[ENV.outcomeFile] ?? '', null);
      return [
        name,
        {
          exitCode,
          report,
          reportDir,
          console: consoleOf(reportDir),
          stderr: report ? '' : `${batch.stderr}${batch.stdout}`,
        },
      ];
    }),
  );
}

function consoleOf(reportDir: string): string {
  try {
    return readFileSync(join(reportDir, BATCH_CONSOLE_FILE), 'utf8');
  } catch {
    return '';
  }
}
