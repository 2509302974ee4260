// Playwright config of a batch run (batch-plan.ts): the conformance suite's own settings
// (playwright.config.ts), one project per worker and protocol, each checking a share of the
// variants over that protocol (HTTP/1.1 alone unless a variant names more) — shares apart per
// --retries, and each variant's tests those its own --grep selects — each
// variant's run (its environment, target, settings) given as a test option, and the batch
// reporter, which gives each variant the conformance reporter of a run of its own.
// There is no set-up project: the campaign has run each variant's preflight before, as the set-up
// project does, and checks only variants whose preflight passed this way.
import { dirname, resolve } from 'node:path';
import { defineConfig } from '@playwright/test';
import { caBundleFor } from '../conformance/requests/ca-trust.ts';
import { PROTOCOL_NAME, PROTOCOLS, type Protocol } from '../conformance/requests/protocols.ts';
import { readRunSettings } from '../conformance/settings.ts';
import {
  handOverVariables,
  inputEnvironment,
  onlyHandOvers,
  setForWorkers,
  setHandOvers,
} from '../conformance/env.ts';
import {
  batchSelectionGrep,
  grepCanShare,
  type BatchVariantOptions,
} from '../conformance/run/batch-variants.ts';
import { batchPlanFile, readBatchPlan, type BatchVariant } from './batch-plan.ts';

const plan = readBatchPlan();
// Read by Node once at start-up: set here, it reaches the worker processes (as in the suite's config).
// Beside the plan, in the campaign's directory: not in outputDir, which Playwright empties as it starts.
const caBundle = caBundleFor(plan.caFile, dirname(batchPlanFile()), inputEnvironment());
// Not a setting of the run but the trust of the processes.
if (caBundle) setForWorkers({ NODE_EXTRA_CA_CERTS: caBundle });

/** The suite's test options (conformance/run/test.ts) that each project sets. */
interface SuiteOptions {
  batchVariants: readonly BatchVariantOptions[];
  failedRulesKeepWorker: boolean;
  protocol: Protocol;
}

// The specs register each rule once per variant (conformance/run/batch-variants.ts): set here, the
// names reach the workers, which load the specs again.
setHandOvers(
  handOverVariables({ batchVariants: JSON.stringify(plan.variants.map((variant) => variant.name)) }),
);

export default defineConfig<SuiteOptions>({
  testDir: resolve(import.meta.dirname, '..', 'specs'),
  fullyParallel: true,
  retries: 0,
  workers: plan.workers,
  timeout: 60_000,
  reporter: [[resolve(import.meta.dirname, 'batch-reporter.ts')]],
  outputDir: plan.outputDir,
  use: { trace: 'off', screenshot: 'off', video: 'off' },
  projects: PROTOCOLS.flatMap((protocol) =>
    sharesOfEach(
      plan.variants.filter((variant) => (variant.protocols ?? ['h1']).includes(protocol)),
      plan.workers,
    )
      // No variant over this protocol: no project (an empty share's grep would match every test).
      .filter((share) => share.length > 0)
      .map((share, index) => ({
        // HTTP/1.1's projects keep the names they had before a batch spoke HTTP/2.
        name: protocol === 'h1' ? `batch-${index + 1}` : `batch-${index + 1} ${PROTOCOL_NAME[protocol]}`,
        // One worker per project, serving each variant of its share: a variant's clients, proxy and
        // learned tenants are made once in it (conformance/run/variant-world.ts), as in a run of its
        // own with one worker, and no variant costs a worker process of its own. A protocol is a
        // worker option (a rule's connections are the worker's): each protocol has projects of its
        // own, as a run of its own has a project per protocol.
        workers: 1,
        // Each variant's tests, those its own --grep matches if it has one.
        grep: batchSelectionGrep(share),
        // Its variants' --retries, which Playwright reads per project as a run reads its own.
        retries: share[0]?.retries ?? 0,
        use: {
          protocol,
          failedRulesKeepWorker: plan.failedRulesKeepWorker === true,
          batchVariants: share.map((variant) => ({
            name: variant.name,
            // This config is the batch's entry point: each variant's settings resolve here, once, as
            // the runner resolves a run's of its own — its variables over the environment the
            // campaign was started in (a CONFORMANCE_MAX_RETRIES there holds for both ways of
            // running a variant).
            runSettings: readRunSettings({ ...inputEnvironment(), ...variant.environment }),
            // Its hand-overs alone: its settings are resolved above, never read again by a worker.
            runEnvironment: onlyHandOvers(variant.environment),
            declaredTarget: variant.declaredTarget,
          })),
        },
      })),
  ),
});

/**
 * The variants in shares that one project can check: those of one `--retries` together (a
 * project's setting), and apart a variant whose --grep cannot share one regular expression with
 * others (batch-variants.ts); each such group dealt over the workers. The campaign's variants,
 * which have neither, are one group, dealt as before.
 */
function sharesOfEach(variants: readonly BatchVariant[], count: number): BatchVariant[][] {
  const groups = new Map<string, BatchVariant[]>();
  for (const variant of variants) {
    const key = grepCanShare(variant.grep) ? `${variant.retries ?? 0}` : `alone ${variant.name}`;
    groups.set(key, [...(groups.get(key) ?? []), variant]);
  }
  if (groups.size === 0) return sharesOf([], count);
  return [...groups.values()].flatMap((group) => sharesOf(group, count));
}

/** The variants in `count` shares, dealt in turn: the plan's order, spread over the workers. */
function sharesOf(variants: readonly BatchVariant[], count: number): BatchVariant[][] {
  const shares = Array.from(
    { length: Math.max(1, Math.min(count, variants.length)) },
    (): BatchVariant[] => [],
  );
  variants.forEach((variant, index) => shares[index % shares.length]?.push(variant));
  return shares;
}
