// A batch speaks each protocol its variants name (mutation/batch.config.ts): a project per
// protocol and share, as a run of its own has a project per protocol, each with the protocol as
// its worker option and a grep that selects its share's variants alone; no project for a protocol
// no variant names (an empty share's grep would select every test). The campaign's variants,
// which name none, keep HTTP/1.1's projects under the names they had.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BatchPlan } from '../../mutation/batch-plan.ts';
import { ENV } from '../../conformance/env.ts';
import { batchVariantTitle } from '../../conformance/run/batch-variants.ts';
import { scratchDirectory } from '../support/scratch.ts';

interface Project {
  name: string;
  grep: RegExp;
  use: { protocol: string; batchVariants: readonly { name: string }[] };
}

test('a project per protocol and share, each selecting the variants of its share that speak it', async () => {
  const work = scratchDirectory('batch-config-protocols-');
  const variant = (name: string, protocols?: string[]) => ({
    name,
    environment: {},
    reportDir: join(work, name),
    ...(protocols ? { protocols } : {}),
  });
  const plan = {
    workers: 2,
    caFile: join(work, 'ca.crt'),
    outputDir: join(work, 'test-results'),
    variants: [
      variant('campaign-like'),
      variant('both', ['h1', 'h2']),
      variant('h2-only', ['h2']),
      variant('h1-named', ['h1']),
    ],
  } as unknown as BatchPlan;
  const planFile = join(work, 'batch-plan.json');
  writeFileSync(planFile, JSON.stringify(plan));
  process.env[ENV.batchPlan] = planFile;
  const { default: config } = (await import('../../mutation/batch.config.ts')) as {
    default: { projects: Project[] };
  };
  const shares = config.projects.map((project) => ({
    name: project.name,
    protocol: project.use.protocol,
    variants: project.use.batchVariants.map((each) => each.name),
  }));
  assert.deepEqual(shares, [
    // HTTP/1.1's three variants dealt over the two workers, in the plan's order.
    { name: 'batch-1', protocol: 'h1', variants: ['campaign-like', 'h1-named'] },
    { name: 'batch-2', protocol: 'h1', variants: ['both'] },
    { name: 'batch-1 HTTP/2', protocol: 'h2', variants: ['both'] },
    { name: 'batch-2 HTTP/2', protocol: 'h2', variants: ['h2-only'] },
  ]);
  // A rule test's title path, as registerRules makes it: a project's grep selects its share's alone.
  const testOf = (name: string): string =>
    `rules ${batchVariantTitle(name)} KEY-VALID-SERVED @KEY-VALID-SERVED`;
  for (const project of config.projects)
    for (const name of ['campaign-like', 'both', 'h2-only', 'h1-named'])
      assert.equal(
        project.grep.test(testOf(name)),
        project.use.batchVariants.some((each) => each.name === name),
        `${project.name} selects ${name} only if it is in its share`,
      );
});

test("the campaign's batch, whose variants name no protocol: HTTP/1.1's projects alone, as before", async () => {
  const work = scratchDirectory('batch-config-protocols-');
  const plan = {
    workers: 2,
    caFile: join(work, 'ca.crt'),
    outputDir: join(work, 'test-results'),
    variants: ['a', 'b', 'c'].map((name) => ({
      name,
      environment: {},
      reportDir: join(work, name),
    })),
  } as unknown as BatchPlan;
  const planFile = join(work, 'batch-plan.json');
  writeFileSync(planFile, JSON.stringify(plan));
  process.env[ENV.batchPlan] = planFile;
  // Another instance of the config (its query makes it another module): it reads this plan.
  const another = new URL('../../mutation/batch.config.ts?campaign', import.meta.url).href;
  const { default: config } = (await import(another)) as {
    default: { projects: Project[] };
  };
  assert.deepEqual(
    config.projects.map((project) => [project.name, project.use.protocol, project.use.batchVariants.length]),
    [
      ['batch-1', 'h1', 2],
      ['batch-2', 'h1', 1],
    ],
  );
});
