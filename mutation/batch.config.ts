// Playwright config of a batch run (batch-plan.ts): the conformance suite's own settings
// (playwright.config.ts), one project per variant, each with its run's environment as an option,
// and the batch reporter, which gives each project the conformance reporter of a run of its own.
// There is no set-up project: the campaign has run each variant's preflight before, as the set-up
// project does, and checks only variants whose preflight passed this way.
import { resolve } from 'node:path';
import { defineConfig } from '@playwright/test';
import { caBundleFor } from '../conformance/requests/ca-trust.ts';
import type { RuleId } from '../conformance/catalog/rules.ts';
import { readRunSettings, type RunSettings } from '../conformance/settings.ts';
import type { TargetDeclaration } from '../conformance/deployment/target.ts';
import { readBatchPlan } from './batch-plan.ts';

const plan = readBatchPlan();
// Read by Node once at start-up: set here, it reaches the worker processes (as in the suite's config).
const caBundle = caBundleFor(plan.caFile);
// Not a setting of the run but the trust of the processes.
if (caBundle) process.env.NODE_EXTRA_CA_CERTS = caBundle;

/** The suite's worker options (conformance/run/test.ts) that each project sets. */
interface SuiteOptions {
  runSettings: Readonly<RunSettings> | undefined;
  runEnvironment: Readonly<Record<string, string>> | undefined;
  declaredTarget: TargetDeclaration | undefined;
  expectedToFail: readonly RuleId[];
}

export default defineConfig<object, SuiteOptions>({
  testDir: resolve(import.meta.dirname, '..', 'specs'),
  fullyParallel: true,
  retries: 0,
  workers: plan.workers,
  timeout: 60_000,
  reporter: [[resolve(import.meta.dirname, 'batch-reporter.ts')]],
  outputDir: plan.outputDir,
  use: { trace: 'off', screenshot: 'off', video: 'off' },
  projects: plan.variants.map((variant) => ({
    name: variant.name,
    // One worker per variant at a time: its worker fixtures (target, proxy, learned tenants) are
    // set up once, as in a run of its own with one worker.
    workers: 1,
    use: {
      // This config is the batch's entry point: each variant's settings resolve here, once, as
      // the runner resolves a run's of its own — its variables over the environment the campaign
      // was started in (a CONFORMANCE_MAX_RETRIES there holds for both ways of running a variant).
      runSettings: readRunSettings({ ...process.env, ...variant.environment }),
      runEnvironment: variant.environment,
      declaredTarget: variant.declaredTarget,
      expectedToFail: variant.expectedToFail,
    },
  })),
});
