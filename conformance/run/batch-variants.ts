// Several runs' rules in one Playwright run, each run's under a describe of its own: how the
// mutation campaign's batch (mutation/batch.config.ts) has a few workers check all its variants.
// A worker serves one project, and worker options are part of what Playwright starts a worker
// for: a project per variant, or a variant's settings as worker options, would cost a process per
// variant. Instead the config names the variants here (the environment reaches the workers, which
// load the specs again), `registerRules` registers each rule once per variant, and each test's
// `batchVariantName` option says whose run it is (test.ts). A conformance run names none.
import type { TargetDeclaration } from '../deployment/target.ts';
import type { RunSettings } from '../settings.ts';
import { type Environment, handOver } from '../env.ts';

/** A variant's run, as a project's `batchVariants` option gives it: what a rule project's options say. */
export interface BatchVariantOptions {
  name: string;
  runSettings: Readonly<RunSettings>;
  runEnvironment: Readonly<Record<string, string>>;
  declaredTarget: TargetDeclaration;
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
  return new RegExp(`(?:^| )(?:${names.map(escapedTitle).join('|')}) `);
}

function escapedTitle(name: string): string {
  return batchVariantTitle(name).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * `--grep`'s text as Playwright reads it (its `forceRegExp`): `/source/flags`, or the text itself,
 * case-insensitive. A variant's own selection is read so, as its run of its own would read it.
 */
export function grepOf(pattern: string): RegExp {
  const written = /^\/(.*)\/([gi]*)$/.exec(pattern);
  return written ? new RegExp(written[1] ?? '', written[2]) : new RegExp(pattern, 'gi');
}

/** A variant as a project's grep selects its tests: by its name, and by its own `--grep` if any. */
export interface VariantSelection {
  name: string;
  /** The text of its run's `--grep`: only the tests it matches are the variant's run. */
  grep?: string;
}

/**
 * Whether variant greps can share one regular expression: each is case-insensitive (Playwright's
 * reading of a plain `--grep`) and has no backreference, which the alternation would renumber.
 * A variant whose grep cannot share is a project's share of its own.
 */
export function grepCanShare(grep: string | undefined): boolean {
  if (grep === undefined) return true;
  const { flags, source } = grepOf(grep);
  return flags.includes('i') && !/\\[1-9]|\\k</.test(source);
}

/**
 * Matches the title path of the tests of `variants` alone — a variant's own `--grep`, when it has
 * one, matching too (the title path a run of its own matches it against, with the variant's
 * describe in it): a project's `grep` for its share. A share without a grep is matched as
 * `batchVariantsGrep` matches it. Each grep is tested as a lookahead from the first character, which
 * is what testing it alone does (anchors included); the variant's describe is another lookahead.
 */
export function batchSelectionGrep(variants: readonly VariantSelection[]): RegExp {
  if (variants.every((variant) => variant.grep === undefined))
    return batchVariantsGrep(variants.map((variant) => variant.name));
  const own = variants.map(({ grep }) => (grep === undefined ? undefined : grepOf(grep)));
  if (variants.length > 1 && !variants.every((variant) => grepCanShare(variant.grep)))
    throw new Error(
      'A variant whose --grep is case-sensitive or has a backreference needs a share of its own.',
    );
  const parts = variants.map(({ name }, index) => {
    const title = `(?:^| )${escapedTitle(name)} `;
    const grep = own[index];
    return grep ? `^(?=[\\s\\S]*?${title})(?=[\\s\\S]*?(?:${grep.source}))` : title;
  });
  // One variant alone keeps its grep's own flags; shared greps are all case-insensitive.
  const alone = variants.length === 1 ? own[0] : undefined;
  const flags = alone ? alone.flags.replace('g', '') : 'i';
  return new RegExp(parts.map((part) => `(?:${part})`).join('|'), flags);
}

/** The variant of a batch test, from the describe it is registered under. */
export function batchVariantOf(
  test: { titlePath(): string[] },
  names: readonly string[],
): string | undefined {
  const titles = new Set(test.titlePath());
  return names.find((name) => titles.has(batchVariantTitle(name)));
}
