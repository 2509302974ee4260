// Playwright's `test` for every test of the kit's projects (the rules, the set-up, the teardown),
// with the trace off whatever the run's options say. A trace records each request of Playwright's
// APIRequestContext with its headers, keys included, and no redaction reaches inside it; a team's
// config may ask for one (`--trace on`, `use: { trace }`), which the `run` command refuses but
// Playwright's own command cannot. Declared here as a fixture, not an option: a value of the
// project's `use` or the command line then never replaces it (Playwright resolves an option's
// override where the option is declared, and this declaration comes after it).
// In a batch (batch-variants.ts names its variants) Playwright's per-test recording is replaced
// too: batch-quiet-fixtures.ts says what, and why that changes no verdict.
import { test as base } from '@playwright/test';
import { batchVariantNames } from './batch-variants.ts';
import { BATCH_QUIET_FIXTURES } from './batch-quiet-fixtures.ts';

const kitTest = base.extend({
  trace: ['off', { scope: 'worker' }],
});

export const untracedTest: typeof kitTest = batchVariantNames()
  ? kitTest.extend(BATCH_QUIET_FIXTURES)
  : kitTest;
