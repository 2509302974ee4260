// The batch config (mutation/batch.config.ts) is the entry point of a batch run: it resolves each
// variant's settings as the runner resolves those of a variant run on its own (campaign.ts,
// runByRunner) — the variant's variables over the environment the campaign was started in.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BatchPlan } from '../../mutation/batch-plan.ts';
import { ENV } from '../../conformance/env.ts';
import type { RunSettings } from '../../conformance/settings.ts';
import { scratchDirectory } from '../support/scratch.ts';

test("a variant's settings: its own variables over the campaign's environment, never the defaults alone", async () => {
  const work = scratchDirectory('batch-config-');
  const plan = {
    workers: 1,
    caFile: join(work, 'ca.crt'),
    outputDir: join(work, 'test-results'),
    variants: [
      {
        name: 'clean',
        environment: { [ENV.profile]: 'strict', [ENV.requestTimeout]: '5' },
        reportDir: join(work, 'reports'),
      },
    ],
  } as unknown as BatchPlan;
  const planFile = join(work, 'batch-plan.json');
  writeFileSync(planFile, JSON.stringify(plan));
  process.env[ENV.batchPlan] = planFile;
  // Set by the user who started the campaign, as a run of its own would take it.
  process.env[ENV.maxRetries] = '0';
  process.env[ENV.maxListPages] = '3';
  const { default: config } = (await import('../../mutation/batch.config.ts')) as {
    default: { projects: { use: { batchVariants: readonly { runSettings: RunSettings }[] } }[] };
  };
  const settings = config.projects[0]?.use.batchVariants[0]?.runSettings;
  assert.equal(settings?.profile, 'strict', "the variant's own variable");
  assert.equal(settings.requestTimeoutMs, 5000, "the variant's own variable");
  assert.equal(settings.maxRetries, 0, "the campaign's environment");
  assert.equal(settings.maxListPages, 3, "the campaign's environment");
});
