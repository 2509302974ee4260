// Several runs' rules in one Playwright run, each run's under a describe of its own: how the
// mutation campaign's batch (mutation/batch.config.ts) has a few workers check all its variants.
// A worker serves one project, and worker options are part of what Playwright starts a worker
// for: a project per variant, or a variant's settings as worker options, would cost a process per
// variant. Instead the config names the variants here (the environment reaches the workers, which
// load the specs again), `registerRules` registers each rule once per variant, and each test's
// `batchVariantName` option says whose run it is (test.ts). A conformance run names none.
import type { RuleId } from '../catalog/rules.ts';
import type { TargetDeclaration } from '../deployment/target.ts';
import type { RunSettings } from '../settings.ts';
import { type Environment, handOver } from '../env.ts';

/** A variant's run, as a project's `batchVariants` option gives it: what a rule project's options say. */
export interface BatchVariantOptions {
  name: string;
  runSettings: Readonly<RunSettings>;
  runEnvironment: Readonly<Record<string, string>>;
  declaredTarget: TargetDeclaration;
  expectedToFail: readonly RuleId[];
}

/** The variants whose rules the specs register, in the batch; undefined in a conformance run. */
export function batchVariantNames(env?: Environment): string[] | undefined {
  // A hand-over of the batch's config (conformance/env.ts): never taken from a user's environment.
  const names = handOver('batchVariants', env);
  return names ? (JSON.parse(names) as string[]) : undefined;
}

/** The describe a variant's rules are registered under (and a test's title path names). */
export function batchVariantTitle(name: string): string {
  return `[variant ${name}]`;
}

/** Matches the title path of the tests of `names` alone: a project's `grep` for its share. */
export function batchVariantsGrep(names: readonly string[]): RegExp {
  const escaped = names.map((name) => batchVariantTitle(name).replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`(?:^| )(?:${escaped.join('|')}) `);
}

/** The variant of a batch test, from the describe it is registered under. */
export function batchVariantOf(
  test: { titlePath(): string[] },
  names: readonly string[],
): string | undefined {
  const titles = new Set(test.titlePath());
  return names.find((name) => titles.has(batchVariantTitle(name)));
}
