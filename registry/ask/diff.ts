// diff: what changed between two versions of a deployment, rule by rule, from every stored run of
// each. A rule regressed when it passed in any run of the first version (every run, or an unstable
// one) and fails, warns or errs in every run of the second; recovered the other way round; changed level when the catalogs
// the two versions ran disagree on its level. A rule whose outcome differs between runs of one
// version is unstable: listed apart, never counted as regressed or recovered.
import type { Queryable } from '../database/database.ts';
import { ALL_PROTOCOLS, outcomesOf, runsOf } from '../store/runs.ts';
import { targetText } from '../store/targets.ts';

export interface RuleChange {
  ruleId: string;
  level: string;
  /** The rule's verdict over every protocol checked, in each version. */
  from: string;
  to: string;
  /** Each protocol whose verdict differs between the versions (absent: none, or one protocol). */
  protocols?: Record<string, { from: string; to: string }>;
}

export interface Unstable {
  ruleId: string;
  version: string;
  /** Each run's verdict, oldest first. */
  verdicts: { runId: number; verdict: string }[];
}

export interface VersionDiff {
  deployment: string;
  from: { version: string; runs: number[] };
  to: { version: string; runs: number[] };
  regressed: RuleChange[];
  recovered: RuleChange[];
  /** Other changes of outcome (e.g. pass → not evaluated), and a verdict that changed over one protocol only. */
  changed: RuleChange[];
  changedLevel: { ruleId: string; from: string; to: string }[];
  unstable: Unstable[];
  /** The versions' runs checked different targets (a move the publisher declared): a change may be the target's. */
  targetChanged?: { from: string[]; to: string[] };
}

export class DiffQuestionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DiffQuestionError';
  }
}

const FAILING = new Set(['fail', 'warning', 'error']);

interface VersionRules {
  runs: number[];
  /** The targets its runs checked (base URL and other tenant). */
  targets: string[];
  /** rule → each run's verdict (oldest first), per protocol too, and its level in the latest run. */
  rules: Map<string, RuleRuns>;
}

interface RuleRuns {
  verdicts: { runId: number; verdict: string }[];
  byProtocol: Map<string, { runId: number; verdict: string }[]>;
  level: string;
}

async function versionRules(db: Queryable, deployment: string, version: string): Promise<VersionRules> {
  // A yanked run decides nothing, here as in can-i-ship: the diff is over the runs that stand.
  const stored = (await runsOf(db, deployment, version)).filter((run) => run.yanked === null);
  const runs = stored.map((run) => run.id);
  const targets = [...new Set(stored.map((run) => targetText(run)))].sort();
  if (runs.length === 0)
    throw new DiffQuestionError(
      `No run of ${deployment} ${version} has been published (or every one is yanked).`,
    );
  const rules: VersionRules['rules'] = new Map();
  for (const outcome of await outcomesOf(db, runs)) {
    const entry: RuleRuns = rules.get(outcome.ruleId) ?? {
      verdicts: [],
      byProtocol: new Map(),
      level: outcome.level,
    };
    const verdict = { runId: outcome.runId, verdict: outcome.verdict };
    if (outcome.protocol === ALL_PROTOCOLS) {
      entry.verdicts.push(verdict);
      entry.level = outcome.level;
    } else
      entry.byProtocol.set(outcome.protocol, [...(entry.byProtocol.get(outcome.protocol) ?? []), verdict]);
    rules.set(outcome.ruleId, entry);
  }
  return { runs, targets, rules };
}

/** The protocols whose settled verdict differs between the two versions. */
function protocolChanges(was: RuleRuns | undefined, is: RuleRuns | undefined): RuleChange['protocols'] {
  const changes: NonNullable<RuleChange['protocols']> = {};
  for (const protocol of new Set([...(was?.byProtocol.keys() ?? []), ...(is?.byProtocol.keys() ?? [])])) {
    const from = settled(was?.byProtocol.get(protocol) ?? []);
    const to = settled(is?.byProtocol.get(protocol) ?? []);
    if (from !== undefined && to !== undefined && from !== to) changes[protocol] = { from, to };
  }
  return Object.keys(changes).length > 0 ? changes : undefined;
}

const allFailing = (entry: RuleRuns): boolean =>
  entry.verdicts.length > 0 && entry.verdicts.every((item) => FAILING.has(item.verdict));
/** The distinct verdicts of a rule's runs, oldest first: `pass/fail` for an unstable one. */
const verdictsText = (verdicts: readonly { verdict: string }[]): string =>
  [...new Set(verdicts.map((item) => item.verdict))].join('/');

const settled = (verdicts: readonly { verdict: string }[]): string | undefined =>
  new Set(verdicts.map((item) => item.verdict)).size === 1 ? verdicts[0]?.verdict : undefined;

export async function diffVersions(
  db: Queryable,
  deployment: string,
  from: string,
  to: string,
): Promise<VersionDiff> {
  const before = await versionRules(db, deployment, from);
  const after = await versionRules(db, deployment, to);
  const result: VersionDiff = {
    deployment,
    from: { version: from, runs: before.runs },
    to: { version: to, runs: after.runs },
    regressed: [],
    recovered: [],
    changed: [],
    changedLevel: [],
    unstable: [],
    ...(before.targets.join('\n') !== after.targets.join('\n')
      ? { targetChanged: { from: before.targets, to: after.targets } }
      : {}),
  };
  const ids = [...new Set([...before.rules.keys(), ...after.rules.keys()])].sort();
  for (const ruleId of ids) {
    const was = before.rules.get(ruleId);
    const is = after.rules.get(ruleId);
    let flips = false;
    // A version diffed with itself is one version: its unstable rules are listed once.
    const sides =
      from === to
        ? ([[from, was]] as const)
        : ([
            [from, was],
            [to, is],
          ] as const);
    for (const [version, entry] of sides)
      if (entry && settled(entry.verdicts) === undefined) {
        result.unstable.push({ ruleId, version, verdicts: entry.verdicts });
        flips = true;
      }
    if (was && is && was.level !== is.level)
      result.changedLevel.push({ ruleId, from: was.level, to: is.level });
    if (flips) {
      // An unstable baseline does not excuse a version that fails the rule in every run: any pass
      // of the baseline against no pass of the new version is a regression (CI's gate must stop).
      if (from !== to && was && is && was.verdicts.some((item) => item.verdict === 'pass') && allFailing(is))
        result.regressed.push({
          ruleId,
          level: is.level,
          from: verdictsText(was.verdicts),
          to: verdictsText(is.verdicts),
        });
      continue;
    }
    const fromVerdict = was ? settled(was.verdicts) : 'absent';
    const toVerdict = is ? settled(is.verdicts) : 'absent';
    if (fromVerdict === undefined || toVerdict === undefined) continue;
    const protocols = protocolChanges(was, is);
    if (fromVerdict === toVerdict && protocols === undefined) continue;
    const change: RuleChange = {
      ruleId,
      level: is?.level ?? was?.level ?? '',
      from: fromVerdict,
      to: toVerdict,
      ...(protocols ? { protocols } : {}),
    };
    if (fromVerdict === 'pass' && FAILING.has(toVerdict)) result.regressed.push(change);
    else if (FAILING.has(fromVerdict) && toVerdict === 'pass') result.recovered.push(change);
    else result.changed.push(change);
  }
  return result;
}
