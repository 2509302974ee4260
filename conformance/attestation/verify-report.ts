// Whether conformance.json agrees with itself, read as verify reads it (verify-bundle.ts): its
// verdict, per protocol too, is what its rules come to by the code that made it, its counts are
// its rules', its scope follows from its protocols, hosts, options and catalog, and a merged run's
// shards are one run's. A forged report that still hashes right (SHA256SUMS and the statement
// rewritten to match) is caught here, and named by the field that gives it away.
import { isDeepStrictEqual } from 'node:util';
import type { ConformanceReport } from '../../schemas/generated/conformance-report.ts';
import { describeSchemaErrors, validatorFor } from '../../schemas/validators.ts';
import { REPORT_FILES } from '../report/write-reports.ts';
import { failsRun, NOT_RUN_MESSAGE, overallVerdict, runVerdict } from '../report/verdict.ts';
import { verdictOverProtocol } from '../report/build-report.ts';
import { catalogDigestOf } from '../report/provenance.ts';
import { scopeInputsOf, scopeOf } from '../report/scope.ts';
import { mergedSettingsDifferences, shardDisagreements } from '../report/shard-records.ts';
import { parsedOnce } from './json-keys.ts';

export function readReport(bytes: Buffer | undefined, problems: string[]): ConformanceReport | undefined {
  if (bytes === undefined) return undefined; // named missing or refused above
  const parsed = parsedOnce(REPORT_FILES.json, bytes, problems);
  if (!parsed) return undefined;
  const data = parsed.value;
  const validate = validatorFor<ConformanceReport>('conformance-report.schema.json');
  if (!validate(data)) {
    problems.push(
      `${REPORT_FILES.json} is not a conformance report (schemas/conformance-report.schema.json): ${describeSchemaErrors(validate.errors).join('; ')}`,
    );
    return undefined;
  }
  return data;
}

/**
 * The report agrees with itself: its verdict is what its rules come to (by the code that made it),
 * its counts are its rules' counts, its scope is what its protocols and selection make it, and a
 * merged run's shards ran against one target with one kit and one catalog.
 */
export function checkReport(report: ConformanceReport, problems: string[]): void {
  if (report.verdict !== 'SETUP ERROR') {
    const recomputed = runVerdict(report.rules, report.profile, report.scope);
    if (recomputed !== report.verdict)
      problems.push(
        `${REPORT_FILES.json} says ${report.verdict}, but its rules come to ${recomputed} (profile ${report.profile}).`,
      );
  }
  const counts = new Map<string, number>();
  for (const rule of report.rules) {
    const key = summaryKey(rule.verdict);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const summary = report.summary as unknown as Record<string, number>;
  for (const key of new Set([...Object.keys(summary), ...counts.keys()])) {
    const stated = summary[key] ?? 0;
    const counted = counts.get(key) ?? 0;
    if (stated !== counted)
      problems.push(`${REPORT_FILES.json}'s summary counts ${stated} ${key}, but its rules hold ${counted}.`);
  }
  if (report.scope) {
    const scope = report.scope;
    const recomputed = scopeOf(
      scopeInputsOf(
        scope,
        report.tls ?? [],
        report.shards ?? [],
        report.target.hosts ?? {},
        // A set-up error certifies nothing: its missing certificate is the error itself.
        report.verdict === 'SETUP ERROR' ? undefined : report.target.baseUrl,
        report.target,
      ),
    );
    // What rests on the vendor's word follows from the target (vendor-inputs.ts): never fewer lines.
    if (!isDeepStrictEqual(recomputed.vendorsWord, scope.vendorsWord))
      problems.push(
        `${REPORT_FILES.json}'s scope does not say what the run took on the vendor's word: it should say ${JSON.stringify(recomputed.vendorsWord ?? [])}, it says ${JSON.stringify(scope.vendorsWord ?? [])}.`,
      );
    else if (!isDeepStrictEqual(recomputed, scope))
      problems.push(
        `${REPORT_FILES.json}'s scope does not follow from its protocols and hosts: it should say ${JSON.stringify(recomputed.partial)} of what is partial, it says ${JSON.stringify(scope.partial)}.`,
      );
    if (report.catalog && scope.rulesInCatalog !== report.catalog.rules)
      problems.push(
        `${REPORT_FILES.json}'s scope counts ${scope.rulesInCatalog} rules in the catalog, its catalog ${report.catalog.rules}.`,
      );
  }
  problems.push(...protocolVerdictDifferences(report));
  problems.push(...warningsUnderProfile(report));
  problems.push(...baseUrlCertificateDifferences(report));
  problems.push(...settingsDifferences(report));
  problems.push(...catalogDifferences(report));
  problems.push(...selectionDifferences(report));
  for (const difference of mergedSettingsDifferences(report.scope?.settings, report.shards ?? []))
    problems.push(`${REPORT_FILES.json} is a merge whose settings are not its shards': ${difference}`);
  for (const disagreement of shardDisagreements(report.shards ?? []))
    problems.push(`${REPORT_FILES.json} merges shards that are not one run: ${disagreement}`);
}

/**
 * Each protocol's verdict (`protocols`) recomputed from the rules' verdicts over it, by the code
 * that made it; and no rule's verdict milder than a failure or error over one protocol.
 */
function protocolVerdictDifferences(report: ConformanceReport): string[] {
  if (report.verdict === 'SETUP ERROR') return [];
  const problems: string[] = [];
  const byProtocol = report.rules.some((rule) => rule.protocols !== undefined);
  for (const entry of report.protocols ?? []) {
    if (entry.verdict === undefined) continue;
    const recomputed = byProtocol
      ? verdictOverProtocol(report.rules, entry.name, report.profile)
      : overallVerdict(report.rules, report.profile);
    if (recomputed !== entry.verdict)
      problems.push(
        `${REPORT_FILES.json} says ${entry.name} ${entry.verdict}, but its rules over ${entry.name} come to ${recomputed}.`,
      );
  }
  for (const rule of report.rules) {
    const over = Object.values(rule.protocols ?? {});
    const worst = over.includes('fail') ? 'fail' : over.includes('error') ? 'error' : undefined;
    if (worst !== undefined && rule.verdict !== 'fail' && !(worst === 'error' && rule.verdict === 'error'))
      problems.push(
        `${REPORT_FILES.json} says ${rule.id} ${rule.verdict}, but over one protocol it is ${worst}.`,
      );
  }
  return problems;
}

/**
 * A warning is a failure the rule's level let pass under the profile it ran under: a rule whose
 * level fails the run under the report's profile (MUST always, HTTP under strict) cannot be one,
 * overall or over one protocol. One that is was judged under a milder profile than the report
 * names (a default shard merged into a strict run).
 */
function warningsUnderProfile(report: ConformanceReport): string[] {
  return report.rules
    .filter((rule) => failsRun(rule.level, report.profile))
    .filter((rule) => [rule.verdict, ...Object.values(rule.protocols ?? {})].includes('warning'))
    .map(
      (rule) =>
        `${REPORT_FILES.json} says ${rule.id} warning, but a failure of a ${rule.level} rule fails the run under profile ${report.profile}: it was judged under a milder profile.`,
    );
}

/**
 * The certificate the report gives for its base URL was seen at the base URL's host and port (the
 * embedded reference's port, chosen when it starts, aside): another host's certificate says the
 * rules ran against another target than the one the report names.
 */
function baseUrlCertificateDifferences(report: ConformanceReport): string[] {
  const { baseUrl } = report.target;
  const free = baseUrl.includes('{free port}');
  // As the preflight writes a host (deployment/preflight.ts): URL's host, with :443 added when it
  // has no colon (an IPv6 address keeps its brackets, and no default port).
  const authority = (host: string): string => (host.includes(':') ? host : `${host}:443`);
  let expected: string;
  try {
    const url = new URL(baseUrl.replace('{free port}', '1'));
    expected = free ? url.hostname : authority(url.host);
  } catch {
    return [];
  }
  const seen = (host: string): string => (free ? host.replace(/:\d+$/, '') : host).toLowerCase();
  return (report.tls ?? [])
    .filter((entry) => entry.field === 'baseUrl' && seen(entry.host) !== expected.toLowerCase())
    .map(
      (entry) =>
        `${REPORT_FILES.json} names the base URL ${baseUrl}, but its base URL's certificate was seen at ${entry.host}: the rules ran against another target than the one it names.`,
    );
}

/**
 * The rules a report lists are the catalog it names: their ids, levels and statements hash to its
 * digest (a level lowered from MUST to ADVISORY, a failing rule left out, changes it).
 */
function catalogDifferences(report: ConformanceReport): string[] {
  if (!report.catalog || report.verdict === 'SETUP ERROR') return [];
  const listed = catalogDigestOf(report.rules);
  if (listed.sha256 === report.catalog.sha256 && listed.rules === report.catalog.rules) return [];
  return [
    `${REPORT_FILES.json} lists ${listed.rules} rules whose ids, levels and statements are not the catalog it names (sha256 ${report.catalog.sha256}, ${report.catalog.rules} rules): a rule was left out, added or changed.`,
  ];
}

/**
 * A scope that says every rule was selected and nothing is partial holds no rule that was not run
 * in the selection, and counts the rules its options count.
 */
function selectionDifferences(report: ConformanceReport): string[] {
  const scope = report.scope;
  if (!scope) return [];
  const problems: string[] = [];
  const notRun = report.rules.filter((rule) => rule.message === NOT_RUN_MESSAGE).map((rule) => rule.id);
  if (scope.partial.length === 0 && notRun.length > 0)
    problems.push(
      `${REPORT_FILES.json}'s scope says the run is complete, but ${notRun.length} of its rules were not run in its selection (${notRun.slice(0, 3).join(', ')}${notRun.length > 3 ? ', …' : ''}).`,
    );
  const selected = report.options?.selectedRules;
  if (selected !== undefined && selected !== scope.rulesSelected)
    problems.push(
      `${REPORT_FILES.json}'s scope says ${scope.rulesSelected} rules were selected, its options ${selected}: they are one run's.`,
    );
  return problems;
}

/** The settings the scope records and the options the report records are the same run's. */
function settingsDifferences(report: ConformanceReport): string[] {
  const settings = report.scope?.settings as Record<string, unknown> | undefined;
  const options = report.options as Record<string, unknown> | undefined;
  if (!settings || !options) return [];
  const shared = [
    'retries',
    'repeatEach',
    'maxRetries',
    'retryBudgetSeconds',
    'requestTimeoutSeconds',
    'maxRequestsPerSecond',
    'maxListPages',
    'maxListRecords',
  ];
  return shared
    .filter((name) => name in options && !isDeepStrictEqual(options[name], settings[name]))
    .map(
      (name) =>
        `${REPORT_FILES.json}'s scope says ${name} ${String(settings[name])}, its options ${String(options[name])}: they are one run's settings.`,
    );
}

/** The summary's name of a rule verdict: `not-evaluated` is counted as `notEvaluated`. */
function summaryKey(verdict: string): string {
  return verdict.replace(/-([a-z])/g, (_match, letter: string) => letter.toUpperCase());
}
