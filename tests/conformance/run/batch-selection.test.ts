// A batch checks several runs in one Playwright run; a run given `--grep` or `--retries` is one
// of them too. A project's grep selects each variant's tests that its own `--grep` matches (all of
// them without one), exactly as that grep alone would over the title path; a project's retries
// are its variants' --retries, so variants are shared out by it, and a grep that cannot share one
// regular expression with others gets a project of its own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import {
  batchSelectionGrep,
  batchVariantTitle,
  batchVariantsGrep,
  grepCanShare,
  grepOf,
} from '../../../conformance/run/batch-variants.ts';
import type { BatchPlan } from '../../../mutation/batch-plan.ts';
import { handOverVariables, setHandOvers } from '../../../conformance/env.ts';
import { scratchDirectory } from '../../support/scratch.ts';

const NAMES = ['faulty-honest', 'clean', 'clean-slip', 'leak-2', 'a'] as const;
const RULES = [
  'KEY-VALID-SERVED',
  'AUTH-MISSING-HEADER',
  'AUTH-MISSING-HEADER-401',
  'TENANT-CROSS-KEY-REJECTED',
  'ERROR-BODY-SHAPE',
] as const;
/** Greps as tests and users write them: rule ids, tags, alternations, anchors, a /…/ form. */
const GREPS = [
  'KEY-VALID-SERVED:',
  '@ERROR-BODY-SHAPE',
  'AUTH-MISSING-HEADER-401|TENANT-CROSS-KEY-REJECTED:',
  'auth-missing-header:',
  '^ batch',
  'SERVED$',
  '/tenant-cross/i',
  '/TENANT-CROSS/',
  '(AUTH)-MISSING-HEADER.*\\1',
] as const;

/** A rule test's title path as Playwright greps it (project, file, the variant's describe, title, tag). */
function titleOf(variant: string, rule: string): string {
  return ` batch-1 conformance/run/conformance-rule.js ${batchVariantTitle(variant)} MUST ${rule}: what it checks @${rule}`;
}

const variantArbitrary = fc.record(
  { name: fc.constantFrom(...NAMES), grep: fc.option(fc.constantFrom(...GREPS), { nil: undefined }) },
  { requiredKeys: ['name'] },
);

test("a share's grep selects each variant's tests that its own --grep matches, exactly", () => {
  fc.assert(
    fc.property(
      fc.uniqueArray(variantArbitrary, { minLength: 1, maxLength: 4, selector: (variant) => variant.name }),
      fc.constantFrom(...NAMES),
      fc.constantFrom(...RULES),
      (variants, name, rule) => {
        // A share is of greps that can share, or one variant alone (batch.config.ts deals them so).
        const share = variants.length === 1 ? variants : variants.filter((each) => grepCanShare(each.grep));
        fc.pre(share.length > 0);
        const title = titleOf(name, rule);
        const variant = share.find((each) => each.name === name);
        const expected =
          variant !== undefined && (variant.grep === undefined || grepOf(variant.grep).test(title));
        const grep = batchSelectionGrep(share);
        grep.lastIndex = 0;
        assert.equal(grep.test(title), expected, `${grep.source} on ${title}`);
      },
    ),
    { numRuns: 500 },
  );
});

test('without a grep, a share is matched as before (the campaign’s batches unchanged)', () => {
  assert.deepEqual(batchSelectionGrep([{ name: 'a' }, { name: 'b' }]), batchVariantsGrep(['a', 'b']));
});

test('--grep is read as Playwright reads it: case-insensitive, or the /source/flags written', () => {
  assert.equal(grepOf('key-valid').test('KEY-VALID-SERVED'), true);
  assert.equal(grepOf('/key-valid/').test('KEY-VALID-SERVED'), false);
  assert.equal(grepOf('/key-valid/i').source, 'key-valid');
  assert.equal(grepCanShare('/key-valid/'), false, 'case-sensitive');
  assert.equal(grepCanShare('(a)\\1'), false, 'a backreference');
  assert.equal(grepCanShare('KEY-VALID-SERVED:|@AUTH'), true);
  assert.throws(() => batchSelectionGrep([{ name: 'a', grep: '/A/' }, { name: 'b' }]), /a share of its own/);
});

test("the config: a project per --retries and per grep that cannot share, each with its variants' retries", async () => {
  const work = scratchDirectory('batch-selection-');
  const variant = (name: string, more: { grep?: string; retries?: number } = {}) => ({
    name,
    environment: {},
    reportDir: join(work, name),
    ...more,
  });
  const plan = {
    workers: 2,
    caFile: join(work, 'ca.crt'),
    outputDir: join(work, 'test-results'),
    variants: [
      variant('plain'),
      variant('grepped', { grep: 'KEY-VALID-SERVED:' }),
      variant('retried', { retries: 1 }),
      variant('case-sensitive', { grep: '/KEY-VALID/' }),
      variant('other', { grep: '@ERROR-BODY-SHAPE' }),
    ],
  } as unknown as BatchPlan;
  const planFile = join(work, 'batch-plan.json');
  writeFileSync(planFile, JSON.stringify(plan));
  setHandOvers(handOverVariables({ batchPlan: planFile }));
  // Another instance of the config (its query makes it another module): it reads this plan.
  const config = new URL('../../../mutation/batch.config.ts?selection', import.meta.url).href;
  const { default: loaded } = (await import(config)) as {
    default: {
      projects: {
        name: string;
        grep: RegExp;
        retries: number;
        use: { batchVariants: readonly { name: string }[] };
      }[];
    };
  };
  assert.deepEqual(
    loaded.projects.map((project) => [
      project.name,
      project.retries,
      project.use.batchVariants.map((each) => each.name),
    ]),
    [
      ['batch-1', 0, ['plain', 'other']],
      ['batch-2', 0, ['grepped']],
      ['batch-3', 1, ['retried']],
      ['batch-4', 0, ['case-sensitive']],
    ],
  );
  const selects = (project: string, variantName: string, rule: string): boolean => {
    const grep = loaded.projects.find((each) => each.name === project)?.grep;
    if (!grep) return false;
    grep.lastIndex = 0;
    return grep.test(titleOf(variantName, rule));
  };
  assert.equal(selects('batch-1', 'plain', 'AUTH-MISSING-HEADER'), true);
  assert.equal(selects('batch-1', 'other', 'ERROR-BODY-SHAPE'), true);
  assert.equal(selects('batch-1', 'other', 'KEY-VALID-SERVED'), false);
  assert.equal(selects('batch-2', 'grepped', 'KEY-VALID-SERVED'), true);
  assert.equal(selects('batch-2', 'grepped', 'AUTH-MISSING-HEADER'), false);
  assert.equal(selects('batch-4', 'case-sensitive', 'KEY-VALID-SERVED'), true);
  assert.equal(selects('batch-4', 'plain', 'KEY-VALID-SERVED'), false);
});
