// The reporter's side of the run's checker (judging/run-checker.ts): it gathers what the checker
// reads — the tenants' values a worker learned, and through RunEvidence every exchange of the run —
// and, once every test has ended, turns each violation into a failure of the MUST it breaks, over
// the protocol the request was sent in, with the exchange as evidence and its sender named. A
// violation that is already the evidence of a failed MUST rule is that failure already.
import type { TestResult } from '@playwright/test/reporter';
import type { Evidence } from '../../schemas/generated/conformance-report.ts';
import { ruleById, type RuleId } from '../catalog/rules.ts';
import { RUN_INVARIANTS } from '../catalog/run-invariants.ts';
import { judgeRun, type TenantRole, type Violation } from '../judging/run-checker.ts';
import { runFactsOf, type DeclaredHostsAndKeys } from '../judging/run-facts.ts';
import type { TenantValues } from '../judging/tenant-knowledge.ts';
import type { KeyNamer } from '../redaction/shown-keys.ts';
import type { RunExchange } from '../report/har.ts';
import type { OutcomesByProtocol } from '../report/outcomes-by-protocol.ts';
import type { TestOutcome } from '../report/verdict.ts';
import { requestLine, type RecordedExchange } from '../requests/exchange-record.ts';
import { ANNOTATION } from './annotations.ts';
import { showEveryString } from './reporter-results.ts';

export class RunJudgement {
  readonly #tenants: Partial<Record<TenantRole, TenantValues>> = {};
  /** The hosts and key variables the set-up project declared (what a merge judges by). */
  #target: DeclaredHostsAndKeys | undefined;

  /** Keeps the tenants' values a test carries (a worker's first test carries its learning). */
  learned(result: TestResult, namer: KeyNamer): void {
    const target = result.attachments.find((attachment) => attachment.name === ANNOTATION.runTarget)?.body;
    if (target && !this.#target) this.#target = JSON.parse(target.toString('utf8')) as DeclaredHostsAndKeys;
    const body = result.attachments.find((attachment) => attachment.name === ANNOTATION.tenantValues)?.body;
    if (!body) return;
    // Shown as the recorded exchanges are, so that a value is sought in the form they hold it in.
    const learned = showEveryString(JSON.parse(body.toString('utf8')), namer) as Partial<
      Record<TenantRole, { label: string; values: string[] }>
    >;
    for (const role of ['own', 'other'] as const) {
      const tenant = learned[role];
      if (!tenant || this.#tenants[role]) continue;
      this.#tenants[role] = { label: tenant.label, values: new Set(tenant.values) };
    }
  }

  /**
   * Holds the whole history to the run's invariants: each violation not already a MUST's failure
   * fails the MUST it breaks (added to `outcomes`), or — that rule not selected — is a run error.
   */
  judge(
    history: readonly RunExchange[],
    target: DeclaredHostsAndKeys | undefined,
    outcomes: OutcomesByProtocol,
    selected: ReadonlySet<string>,
    runError: (message: string) => void,
  ): void {
    const declared = target ?? this.#target;
    if (!declared || (!this.#tenants.own && !this.#tenants.other)) return;
    const violations = judgeRun(history, runFactsOf(declared, this.#tenants));
    if (violations.length === 0) return;
    const failedMust = evidenceOfFailedMusts(outcomes);
    const fallback = outcomes.protocols()[0] ?? '';
    const byRule = new Map<string, { over: string; violations: Violation[] }[]>();
    for (const violation of violations) {
      if (failedMust.has(violation.exchange.id)) continue;
      const over = history.find((entry) => entry.exchange === violation.exchange)?.over ?? fallback;
      const groups = byRule.get(violation.breach.rule) ?? [];
      const group = groups.find((candidate) => candidate.over === over);
      if (group) group.violations.push(violation);
      else groups.push({ over, violations: [violation] });
      byRule.set(violation.breach.rule, groups);
    }
    for (const [rule, groups] of byRule)
      for (const { over, violations: seen } of groups) {
        const outcome = failureOf(seen);
        if (selected.has(rule)) outcomes.add(over, rule, outcome, false);
        else runError(`${rule} (not selected in this run): ${outcome.failure?.message ?? ''}`);
      }
  }
}

/** The exchanges already shown as evidence of a MUST rule that failed. */
function evidenceOfFailedMusts(outcomes: OutcomesByProtocol): Set<string> {
  const ids = new Set<string>();
  for (const [rule, ruleOutcomes] of outcomes.byRule()) {
    if (ruleById(rule as RuleId).level !== 'MUST') continue;
    for (const outcome of ruleOutcomes)
      if (outcome.status !== 'passed' && outcome.failure)
        for (const evidence of outcome.failure.evidence) if (evidence.exchange) ids.add(evidence.exchange);
  }
  return ids;
}

/** The failure of one rule over one protocol: a sentence per violation, each exchange its evidence. */
export function failureOf(violations: readonly Violation[]): TestOutcome {
  const message = violations.map(describeViolation).join('\n');
  return {
    status: 'failed',
    failure: { message, evidence: violations.map(({ exchange }) => evidenceOf(exchange)), leak: true },
  } as TestOutcome;
}

export function describeViolation({
  breach,
  sender,
  exchange,
  tenant,
  values,
  confirmed,
}: Violation): string {
  const answer = exchange.response ? ` → ${exchange.response.status}` : '';
  const data =
    confirmed === undefined
      ? `was answered with data of ${tenant.label}: ${values.map((value) => JSON.stringify(value)).join(', ')}`
      : `was answered 304 Not Modified to ${confirmed}: it confirms the client's stored copy of ${tenant.label}'s answer, that tenant's data in effect`;
  return `The run's checker: a request sent by ${sender} — ${requestLine({ ...exchange.request, protocol: exchange.request.httpVersion })}${answer} — ${data}. ${RUN_INVARIANTS[breach.invariant]} (${breach.invariant}; ${breach.request}.) A violation seen by any request of the run fails the MUST whose statement it breaks, whichever rule sent it.`;
}

const BODY_EXCERPT_LENGTH = 300;

/** A recorded exchange as a report's evidence (keys already shown as their variables). */
export function evidenceOf(exchange: RecordedExchange): Evidence {
  const { request, response } = exchange;
  return {
    method: request.method,
    url: request.url,
    ...(request.note ? { note: request.note } : {}),
    requestHeaders: request.headers,
    ...(request.body !== undefined ? { requestBody: request.body } : {}),
    exchange: exchange.id,
    ...(request.httpVersion ? { protocol: request.httpVersion } : {}),
    ...(response
      ? {
          status: response.status,
          headers: Object.fromEntries(response.headers.map(({ name, value }) => [name, value])),
          bodyExcerpt: response.body.slice(0, BODY_EXCERPT_LENGTH),
        }
      : { failure: exchange.error ?? '' }),
  };
}
