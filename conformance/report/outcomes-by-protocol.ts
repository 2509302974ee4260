// A rule's outcomes when the run checks it over several protocols (a Playwright project each):
// the rule's verdict is over all of them — it fails if it fails over any — and each protocol's
// own verdict is kept for the report. A message says which protocol it came from.
import type { ConformanceReport } from '../../schemas/generated/conformance-report.ts';
import type { TestOutcome } from './verdict.ts';

export class OutcomesByProtocol {
  readonly #outcomes = new Map<string, Map<string, TestOutcome[]>>();

  /** `retried`: a result of a test run again (`--retries`), which replaces its last one. */
  add(protocol: string, ruleId: string, outcome: TestOutcome, retried: boolean): void {
    const byRule = this.#outcomes.get(protocol) ?? new Map<string, TestOutcome[]>();
    const outcomes = byRule.get(ruleId) ?? [];
    if (retried) outcomes.pop();
    outcomes.push(outcome);
    byRule.set(ruleId, outcomes);
    this.#outcomes.set(protocol, byRule);
  }

  protocols(): string[] {
    return [...this.#outcomes.keys()];
  }

  /** Every outcome of each rule; with several protocols, each message names its protocol. */
  byRule(): Map<string, TestOutcome[]> {
    const several = this.#outcomes.size > 1;
    const all = new Map<string, TestOutcome[]>();
    for (const [protocol, byRule] of this.#outcomes) {
      for (const [ruleId, outcomes] of byRule) {
        const named = several ? outcomes.map((outcome) => namedFor(protocol, outcome)) : outcomes;
        all.set(ruleId, [...(all.get(ruleId) ?? []), ...named]);
      }
    }
    return all;
  }

  /** Each protocol's outcomes of each rule, as they came. */
  byProtocol(): Map<string, ReadonlyMap<string, readonly TestOutcome[]>> {
    return new Map(this.#outcomes);
  }
}

function namedFor(protocol: string, outcome: TestOutcome): TestOutcome {
  const over = (message: string): string => `over ${protocol}: ${message}`;
  return {
    ...outcome,
    ...(outcome.warning !== undefined ? { warning: over(outcome.warning) } : {}),
    ...(outcome.error !== undefined ? { error: over(outcome.error) } : {}),
    ...(outcome.failure ? { failure: { ...outcome.failure, message: over(outcome.failure.message) } } : {}),
  };
}

/**
 * "HTTP/1.1 CONFORMANT; HTTP/2 NOT CONFORMANT", "HTTP/2 CONFORMANT; HTTP/1.1 not offered by the
 * target", or undefined for a run over one protocol the target offers.
 */
export function protocolsLine(report: ConformanceReport): string | undefined {
  return report.protocols
    ?.map(({ name, verdict, offered }) =>
      offered === false ? `${name} not offered by the target` : `${name} ${verdict ?? ''}`,
    )
    .join('; ');
}
