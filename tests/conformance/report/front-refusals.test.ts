// An ERROR after 502/503/504 at every try keeps the advice to check the deployment's health unless
// the run's own exchanges show the deployment answering before and after the refused requests,
// and requests refused at separate moments with answers between them: then a front refused
// exactly those, and the message says so. One stretch of refusals may be a restart: the advice
// stands. Read from a run's exchanges alone.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { explainFrontRefusals } from '../../../conformance/report/front-refusals.ts';
import type { RunExchange } from '../../../conformance/report/har.ts';
import type { TestOutcome } from '../../../conformance/report/verdict.ts';
import { HEALTH_ADVICE, unavailableError } from '../../../conformance/requests/transient.ts';

const RULE = 'AUTH-QUOTED-KEY-REJECTED';
const T0 = Date.parse('2026-11-27T10:00:00Z');
const ERROR = `Inconclusive: A valid key in double quotes: only transient answers (a front, not the target, answered), so the rule could not be checked. GET https://acme.api.example/v1/customers → ${unavailableError(503, '2 tries (--max-retries 1)')}`;

function exchange(
  id: string,
  atSeconds: number,
  madeBy: string,
  answer: 'served' | 'retried' | 'refused',
  attempts = ['try-1'],
): RunExchange {
  const base = {
    id,
    startedAt: new Date(T0 + atSeconds * 1000).toISOString(),
    durationMs: 10,
    request: { method: 'GET', url: 'https://acme.api.example/v1/customers', headers: [] },
  };
  const response = { status: answer === 'served' ? 200 : 503, headers: [], body: '' };
  if (answer === 'served') return { madeBy, exchange: { ...base, response } };
  if (answer === 'retried') return { madeBy, exchange: { ...base, response, retriedAfterMs: 500 } };
  return {
    madeBy,
    exchange: { ...base, error: 'only transient answers', transientStatus: 503, attempts },
  };
}

/** The rule's request refused at 10 s and, after its retry, at 11 s; other requests around as given. */
function run(...others: RunExchange[]): RunExchange[] {
  return [exchange('try-1', 10, RULE, 'retried'), exchange('try-2', 11, RULE, 'refused'), ...others];
}

/** Another rule's request refused at `atSeconds` and, after its retry, a second later. */
function refusedAt(atSeconds: number): RunExchange[] {
  return [
    exchange(`other-${atSeconds}`, atSeconds, 'AUTH-DUPLICATE-HEADER-REJECTED', 'retried'),
    exchange(`other-${atSeconds}-2`, atSeconds + 1, 'AUTH-DUPLICATE-HEADER-REJECTED', 'refused', [
      `other-${atSeconds}`,
    ]),
  ];
}

function explained(exchanges: RunExchange[]): string | undefined {
  const outcomes = new Map<string, TestOutcome[]>([[RULE, [{ status: 'failed', error: ERROR }]]]);
  return explainFrontRefusals(outcomes, exchanges).get(RULE)?.[0]?.error;
}

describe('front refusals: the advice of an ERROR after 503 at every try', () => {
  test('answers of the deployment before and after the refused tries, and requests refused at another moment with answers between: a front refused exactly these requests', () => {
    const message = explained(
      run(
        exchange('o1', 3, 'AUTH-DUPLICATE-HEADER-REJECTED', 'retried'),
        exchange('o2', 4, 'AUTH-DUPLICATE-HEADER-REJECTED', 'refused', ['o1']),
        exchange('a', 1, 'KEY-VALID-SERVED', 'served'),
        exchange('b', 9, 'AUTH-MISSING-HEADER-401', 'served'),
        exchange('c', 12, 'KEY-UNKNOWN-REJECTED', 'served'),
      ),
    );
    assert.equal(
      message,
      'Inconclusive: A valid key in double quotes: only transient answers (a front, not the target, answered), so the rule could not be checked. GET https://acme.api.example/v1/customers → ' +
        "a front refused exactly the requests the rules need: it answered 503 to all 2 tries (--max-retries 1), while the deployment answered this run's requests before and after every one of them (at least 2 before, 1 after). " +
        'The deployment cannot be certified through this front: let the suite’s requests through it as they are (any Authorization value, a repeated field, a query string, a forwarding header), or run the suite against the deployment behind it.',
    );
  });

  test('one stretch of refusals in a run served before and after it (a restart, a deploy): the advice to check its health stands', () => {
    // Every request of those seconds was refused, whatever it was: nothing shows that a front
    // picked these requests rather than that the deployment was briefly down.
    const message = explained(
      run(
        exchange('a', 1, 'KEY-VALID-SERVED', 'served'),
        exchange('b', 9, 'AUTH-MISSING-HEADER-401', 'served'),
        exchange('o1', 12, 'AUTH-DUPLICATE-HEADER-REJECTED', 'retried'),
        exchange('o2', 13, 'AUTH-DUPLICATE-HEADER-REJECTED', 'refused', ['o1']),
        exchange('c', 20, 'KEY-UNKNOWN-REJECTED', 'served'),
      ),
    );
    assert.ok(message?.startsWith(ERROR), message);
    assert.equal(
      message?.slice(ERROR.length),
      " The deployment answered this run's requests before and after (at least 2 before, 1 after) and refused nothing at another moment: " +
        'if a new run meets the same refusal, it is a front that refuses this request, not an outage; let the suite’s requests through it as they are, or run the suite against the deployment behind it.',
    );
    assert.doesNotMatch(message ?? '', /a front refused exactly|cannot be certified/);
  });

  // The tests below refuse requests at a second moment too, so that what they show is the answers
  // around the rule's own refused tries, not the one stretch above.

  test('no answer after the refused tries (the deployment went down): the advice to check its health stands', () => {
    const message = explained(
      run(
        exchange('a', 1, 'KEY-VALID-SERVED', 'served'),
        ...refusedAt(3),
        exchange('s', 6, 'AUTH-MISSING-HEADER-401', 'served'),
        exchange('b', 12, 'KEY-UNKNOWN-REJECTED', 'retried'),
      ),
    );
    assert.equal(message, ERROR);
    assert.ok(message?.includes(HEALTH_ADVICE));
  });

  test('no answer before them (nothing shows the deployment was up): the advice stands', () => {
    assert.equal(
      explained(run(exchange('c', 12, 'KEY-UNKNOWN-REJECTED', 'served'), ...refusedAt(14))),
      ERROR,
    );
  });

  test('an answer during the retried try does not count as before it: only outside the tries', () => {
    // Answered at 10.5 s, between the two tries, and never before the first: not "around".
    assert.equal(
      explained(
        run(
          exchange('m', 10.5, 'KEY-VALID-SERVED', 'served'),
          exchange('c', 12, 'X', 'served'),
          ...refusedAt(14),
        ),
      ),
      ERROR,
    );
  });
});
