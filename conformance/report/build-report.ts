// The conformance report of a run: every rule of the catalog with its verdict, rendered from the
// catalog plus the results, never from a hand-kept list.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type {
  ConformanceReport,
  RuleResult,
  SetupProblem,
  TlsEvidence,
} from '../../schemas/generated/conformance-report.ts';
import { PACKAGE_ROOT as ROOT } from '../../kit/package-root.ts';
import { RULES, type Rule } from '../catalog/rules.ts';
import { PROTOCOL_NAME } from '../requests/protocols.ts';
import type { Profile } from '../deployment/target.ts';
import { overallVerdict, ruleVerdict, runVerdict, verdictUnderProfile, type TestOutcome } from './verdict.ts';
import type { Traffic } from './traffic-summary.ts';
import { catalogDigest, sourceCommit, type SourceCommit } from './provenance.ts';
import { vendorsWordOf } from './vendor-inputs.ts';

export const SPEC_FILE = 'spec/access-and-authentication.txt';

export interface RunDescription {
  target: ConformanceReport['target'];
  profile: Profile;
  startedAt: Date;
  durationMs: number;
  shard?: string;
  /** What the preflight found; with `setupError` the run stopped before any rule. */
  setupProblems?: SetupProblem[];
  setupError?: boolean;
  /** Requests each rule sent again after a transient answer (report/traffic-summary.ts). */
  retriesByRule?: ReadonlyMap<string, number>;
  traffic?: Traffic;
  /** Each protocol's outcomes of each rule, when the run checked the rules over several. */
  byProtocol?: ReadonlyMap<string, ReadonlyMap<string, readonly TestOutcome[]>>;
  /** The protocols the run checked the rules over, and those the target's ALPN showed it does not offer. */
  runProtocols?: readonly string[];
  notOffered?: readonly string[];
  /** The settings besides the profile that can change a verdict or the exit code. */
  options?: ConformanceReport['options'];
  /** The certificate and protocol of each declared host, from the preflight. */
  tls?: TlsEvidence[];
  /** What the run could reach (report/reach.ts). */
  reach?: ConformanceReport['reach'];
  /** What the run covered (report/scope.ts). */
  scope?: ConformanceReport['scope'];
  /** A merged run: each shard's own record. */
  shards?: ConformanceReport['shards'];
}

export function buildReport(
  outcomesByRule: ReadonlyMap<string, readonly TestOutcome[]>,
  run: RunDescription,
): ConformanceReport {
  // No rule ran after a failed preflight: the report holds no rule verdicts at all.
  const rules: RuleResult[] = (run.setupError ? [] : RULES).map((rule) => {
    // A warning is a failure its level let pass under the profile the test ran under; the report
    // judges it under its own (verdict.ts, verdictUnderProfile).
    const judged = (outcomes: readonly TestOutcome[]): ReturnType<typeof ruleVerdict> =>
      verdictUnderProfile(ruleVerdict(outcomes), rule.level, run.profile);
    const detail = judged(outcomesByRule.get(rule.id) ?? []);
    const retries = run.retriesByRule?.get(rule.id);
    // A rule of HTTP/2's own has a verdict over HTTP/2 alone: over HTTP/1.1 it is not checked.
    const protocols = run.byProtocol
      ? Object.fromEntries(
          [...run.byProtocol]
            .filter(([protocol]) => !isHttp2Only(rule) || protocol === PROTOCOL_NAME.h2)
            .map(([protocol, byRule]) => [protocol, judged(byRule.get(rule.id) ?? []).verdict]),
        )
      : undefined;
    return {
      id: rule.id,
      level: rule.level,
      source: rule.source,
      statement: rule.statement,
      verdict: detail.verdict,
      ...(detail.message !== undefined ? { message: detail.message } : {}),
      ...(detail.evidence !== undefined ? { evidence: detail.evidence } : {}),
      ...(retries ? { retries } : {}),
      ...(protocols ? { protocols } : {}),
    };
  });
  const count = (verdict: RuleResult['verdict']): number =>
    rules.filter((rule) => rule.verdict === verdict).length;
  return {
    suite: { name: packageJson().name, version: packageJson().version, ...kitSourceCommit() },
    spec: {
      file: SPEC_FILE,
      sha256: createHash('sha256')
        .update(readFileSync(resolve(ROOT, SPEC_FILE)))
        .digest('hex'),
    },
    catalog: catalogDigest(),
    target: run.target,
    profile: run.profile,
    ...(run.options ? { options: run.options } : {}),
    ...(run.tls?.length ? { tls: run.tls } : {}),
    ...(run.reach ? { reach: run.reach } : {}),
    ...(run.shard ? { shard: run.shard } : {}),
    ...(run.scope ? { scope: withVendorsWord(run.scope, run.target) } : {}),
    ...(run.shards?.length ? { shards: run.shards } : {}),
    startedAt: run.startedAt.toISOString(),
    durationMs: Math.round(run.durationMs),
    verdict: run.setupError ? 'SETUP ERROR' : runVerdict(rules, run.profile, run.scope),
    summary: {
      pass: count('pass'),
      fail: count('fail'),
      warning: count('warning'),
      notEvaluated: count('not-evaluated'),
      notApplicable: count('not-applicable'),
      error: count('error'),
    },
    ...(run.traffic ? { traffic: run.traffic } : {}),
    ...protocolsOf(rules, run),
    rules,
    ...(run.setupProblems?.length ? { setupProblems: run.setupProblems } : {}),
  };
}

/**
 * The run's verdict over each protocol when it checked more than one, and each protocol the
 * target does not offer (a run over HTTP/2 alone against an h2-only port: HTTP/1.1 not offered).
 */
function protocolsOf(
  rules: readonly RuleResult[],
  run: RunDescription,
): Pick<ConformanceReport, 'protocols'> {
  if (run.setupError) return {};
  const verdictOver = (name: string): ConformanceReport['verdict'] =>
    verdictOverProtocol(rules, name, run.profile);
  const checked = run.byProtocol ? [...run.byProtocol.keys()] : [];
  const notOffered = run.notOffered ?? [];
  if (checked.length === 0 && notOffered.length === 0) return {};
  const over = checked.length > 0 ? checked : (run.runProtocols ?? []);
  return {
    protocols: [
      ...over.map((name) => ({
        name,
        verdict: checked.length > 0 ? verdictOver(name) : overallVerdict(rules, run.profile),
      })),
      ...notOffered.map((name) => ({ name, offered: false })),
    ],
  };
}

/** The run's verdict over one protocol, from each rule's verdict over it (`verify` recomputes it so). */
export function verdictOverProtocol(
  rules: readonly RuleResult[],
  name: string,
  profile: Profile,
): ConformanceReport['verdict'] {
  return overallVerdict(
    rules
      .filter((rule) => rule.protocols === undefined || name in rule.protocols)
      .map((rule) => ({ level: rule.level, verdict: rule.protocols?.[name] ?? rule.verdict })),
    profile,
  );
}

let kitSource: SourceCommit | undefined;

/**
 * The kit's commit, read (three git commands) once per process: the code that makes the reports
 * is the code loaded when the process started. The mutation campaign's batch writes a report per
 * variant from one process, sixty of them, and asked git each time.
 */
function kitSourceCommit(): SourceCommit {
  kitSource ??= sourceCommit();
  return kitSource;
}

function packageJson(): { name: string; version: string } {
  return JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };
}

function isHttp2Only(rule: Rule): boolean {
  return rule.http2Only === true;
}

/**
 * The scope with what the run took on the vendor's word, which follows from its target alone
 * (vendor-inputs.ts): added where every report is made, so that no report lacks it.
 */
function withVendorsWord(
  scope: NonNullable<ConformanceReport['scope']>,
  target: ConformanceReport['target'],
): NonNullable<ConformanceReport['scope']> {
  const vendorsWord = vendorsWordOf(target);
  return vendorsWord.length > 0 ? { ...scope, vendorsWord } : scope;
}
