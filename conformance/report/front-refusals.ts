// A rule whose request was answered 502/503/504 at every try ends as ERROR with the advice to check
// the deployment's health (requests/transient.ts): at that moment nothing else is known. Once the
// run is over, its exchanges show more. When the deployment answered the run's requests just
// before and just after the refused ones, it was up: a front in front of it refused exactly those
// requests — a gateway that turns away the unusual ones (an Authorization other than
// `Bearer <token>`, a repeated field, a query string, a forwarding header), which are the ones the
// rules need. The message then says so, and that the deployment cannot be certified through it.
// Only when the run was refused at separate moments with answers between them, though: one
// stretch of refusals in a run served before and after it is what a restart or a deploy looks
// like too, and then the advice to check the deployment's health stands, with what a new run
// would show.
import type { RecordedExchange } from '../requests/exchange-record.ts';
import { HEALTH_ADVICE, isUnavailable } from '../requests/transient.ts';
import type { RunExchange } from './har.ts';
import type { TestOutcome } from './verdict.ts';

const UNAVAILABLE_ERROR = new RegExp(
  `the target was unavailable: answered (\\d{3}) to all (.+?)\\. ${HEALTH_ADVICE.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`,
  'g',
);

/** The outcomes of each rule, with the error of a rule refused by a front (as above) saying so. */
export function explainFrontRefusals(
  outcomesByRule: ReadonlyMap<string, readonly TestOutcome[]>,
  exchanges: readonly RunExchange[],
): Map<string, readonly TestOutcome[]> {
  const explained = new Map(outcomesByRule);
  const timeline = answerTimes(exchanges);
  const explain = refusalStretches(exchanges, timeline) < 2 ? outageOrFront : frontRefused;
  for (const [ruleId, outcomes] of outcomesByRule) {
    if (!outcomes.some((outcome) => outcome.error?.includes(HEALTH_ADVICE))) continue;
    const around = servedAround(ruleId, exchanges, timeline);
    if (!around) continue;
    explained.set(
      ruleId,
      outcomes.map((outcome) =>
        outcome.error === undefined
          ? outcome
          : {
              ...outcome,
              error: outcome.error.replace(UNAVAILABLE_ERROR, (_, status: string, bound: string) =>
                explain(status, bound, around),
              ),
            },
      ),
    );
  }
  return explained;
}

interface Around {
  before: number;
  after: number;
}

/** One stretch of refusals: an outage as likely as a front, so the advice stands, and what tells them apart. */
function outageOrFront(status: string, bound: string, around: Around): string {
  return (
    `the target was unavailable: answered ${status} to all ${bound}. ${HEALTH_ADVICE} ` +
    `The deployment answered this run's requests before and after (at least ${around.before} before, ${around.after} after) and refused nothing at another moment: ` +
    'if a new run meets the same refusal, it is a front that refuses this request, not an outage; let the suite’s requests through it as they are, or run the suite against the deployment behind it.'
  );
}

function frontRefused(status: string, bound: string, around: Around): string {
  return (
    `a front refused exactly the requests the rules need: it answered ${status} to all ${bound}, ` +
    `while the deployment answered this run's requests before and after every one of them (at least ${around.before} before, ${around.after} after). ` +
    'The deployment cannot be certified through this front: let the suite’s requests through it as they are ' +
    '(any Authorization value, a repeated field, a query string, a forwarding header), or run the suite against the deployment behind it.'
  );
}

/** When each exchange the target itself answered started, sorted: a transient answer is a front's. */
function answerTimes(exchanges: readonly RunExchange[]): number[] {
  return exchanges
    .flatMap(({ exchange }) => (answeredByTheTarget(exchange) ? [Date.parse(exchange.startedAt)] : []))
    .sort((a, b) => a - b);
}

function answeredByTheTarget(exchange: RecordedExchange): boolean {
  return exchange.response !== undefined && exchange.retriedAfterMs === undefined;
}

/** When a request the front refused at every try was first and last tried. */
interface Span {
  first: number;
  last: number;
}

function refusedSpan(exchange: RecordedExchange, byId: ReadonlyMap<string, RecordedExchange>): Span {
  const tries = [...(exchange.attempts ?? []).flatMap((id) => byId.get(id) ?? []), exchange];
  return {
    first: Math.min(...tries.map((attempt) => Date.parse(attempt.startedAt))),
    last: Date.parse(exchange.startedAt) + exchange.durationMs,
  };
}

function refusedAtEveryTry(exchange: RecordedExchange): boolean {
  return exchange.transientStatus !== undefined && isUnavailable(exchange.transientStatus);
}

/**
 * Into how many stretches the run's refused requests (every rule's and the suite's own) fall, a
 * stretch ending where the target answered a request: 1 when everything refused was refused in
 * one outage.
 */
function refusalStretches(exchanges: readonly RunExchange[], timeline: readonly number[]): number {
  const byId = new Map(exchanges.map(({ exchange }) => [exchange.id, exchange]));
  const spans = exchanges
    .filter(({ exchange }) => refusedAtEveryTry(exchange))
    .map(({ exchange }) => refusedSpan(exchange, byId))
    .sort((a, b) => a.first - b.first);
  let stretches = 0;
  let end = -Infinity;
  for (const span of spans) {
    if (stretches === 0 || timeline.some((time) => time > end && time < span.first)) stretches += 1;
    end = Math.max(end, span.last);
  }
  return stretches;
}

/**
 * How many answers of the target came before the first try and after the last try of the rule's
 * refused requests, when every one of them had answers on both sides; undefined otherwise (the
 * deployment may have been down: the advice to check its health stands).
 */
function servedAround(
  ruleId: string,
  exchanges: readonly RunExchange[],
  timeline: readonly number[],
): Around | undefined {
  const byId = new Map(exchanges.map(({ exchange }) => [exchange.id, exchange]));
  const refused = exchanges.filter(
    ({ madeBy, exchange }) => madeBy === ruleId && refusedAtEveryTry(exchange),
  );
  if (refused.length === 0) return undefined;
  let before = Infinity;
  let after = Infinity;
  for (const { exchange } of refused) {
    const { first, last } = refusedSpan(exchange, byId);
    const answeredBefore = timeline.filter((time) => time < first).length;
    const answeredAfter = timeline.filter((time) => time > last).length;
    before = Math.min(before, answeredBefore);
    after = Math.min(after, answeredAfter);
  }
  return before > 0 && after > 0 ? { before, after } : undefined;
}
