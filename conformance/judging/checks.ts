// The assertions of the conformance rules. Only a ConformanceFailure means "the target does
// not follow the rule"; any other error is a defect of the run itself and is reported as such.
// Every message and every piece of evidence goes through the KeyNamer: a key is shown as the
// name of its environment variable, anything else resembling a key is redacted.
import type { Exchange, ResponseExchange } from '../requests/exchange.ts';
import { errorCode, isJsonContentType, isRefusal, onlyTransient } from '../requests/exchange.ts';
import { recordExchange, requestLine } from '../requests/exchange-record.ts';
import type { KeyNamer } from '../redaction/shown-keys.ts';
import type { TenantValues } from './tenant-knowledge.ts';
import { answerText, carriesAuthorization, confirmedCopy, dataOf } from './answer-data.ts';
import type { Evidence } from '../../schemas/generated/conformance-report.ts';

/** What a report shows of one exchange (schemas/conformance-report.schema.json): enough to reproduce, nothing secret. */
export type { Evidence };

import { ConformanceFailure, Inconclusive } from './failures.ts';

export { ConformanceFailure, Inconclusive };

const RELEVANT_HEADERS = [
  'content-type',
  'www-authenticate',
  'cache-control',
  'vary',
  'strict-transport-security',
  'location',
  'connection',
];
const BODY_EXCERPT_LENGTH = 300;

export class Checks {
  readonly #namer: KeyNamer;
  /** Whose data a rejection must not hold unless a rule says otherwise: both tenants'. */
  readonly #tenants: readonly (TenantValues | undefined)[];

  constructor(namer: KeyNamer, knowledge: { own?: TenantValues; other?: TenantValues } = {}) {
    this.#namer = namer;
    this.#tenants = [knowledge.own, knowledge.other];
  }

  evidence(exchange: Exchange): Evidence {
    const show = (text: string): string => this.#namer.show(text);
    const recorded = recordExchange(exchange, this.#namer);
    const base: Evidence = {
      method: recorded.request.method,
      url: recorded.request.url,
      ...(recorded.request.note ? { note: recorded.request.note } : {}),
      requestHeaders: recorded.request.headers,
      ...(recorded.request.body !== undefined ? { requestBody: recorded.request.body } : {}),
      exchange: recorded.id,
      ...(recorded.request.httpVersion ? { protocol: recorded.request.httpVersion } : {}),
      ...(exchange.attempts
        ? {
            attempts: exchange.attempts.map((attempt) => ({
              exchange: attempt.id,
              ...(attempt.status !== undefined ? { status: attempt.status } : {}),
              ...(attempt.signal !== undefined ? { signal: attempt.signal } : {}),
              retriedAfterMs: Math.round(attempt.retriedAfterMs),
            })),
          }
        : {}),
    };
    if (exchange.kind === 'failure') return { ...base, failure: recorded.error ?? '' };
    const headers = Object.fromEntries(
      RELEVANT_HEADERS.filter((name) => exchange.headers[name] !== undefined).map((name) => [
        name,
        show(exchange.headers[name] ?? ''),
      ]),
    );
    const code = errorCode(exchange);
    return {
      ...base,
      status: exchange.status,
      ...(code ? { errorCode: show(code) } : {}),
      headers,
      bodyExcerpt: show(exchange.bodyText.slice(0, BODY_EXCERPT_LENGTH)),
    };
  }

  fail(message: string, ...exchanges: Exchange[]): never {
    throw new ConformanceFailure(
      this.#namer.show(message),
      exchanges.map((exchange) => this.evidence(exchange)),
    );
  }

  /** A failure that is a leak (see ConformanceFailure.leak): data served where none may be. */
  leak(message: string, ...exchanges: Exchange[]): never {
    throw new ConformanceFailure(
      this.#namer.show(message),
      exchanges.map((exchange) => this.evidence(exchange)),
      true,
    );
  }

  /** One line per exchange, for failure messages. */
  describe(exchange: Exchange): string {
    const evidence = this.evidence(exchange);
    const request = requestLine(evidence);
    const tries = evidence.attempts?.length
      ? ` (after ${evidence.attempts.map((attempt) => attempt.status ?? attempt.signal).join(', ')}, each retried)`
      : '';
    if (exchange.kind === 'failure' && onlyTransient(exchange)) return `${request} → ${evidence.failure}`;
    const switched = exchange.switchedProtocols ? ` ${exchange.switchedProtocols}, then` : '';
    if (evidence.failure) return `${request} →${switched} no response: ${evidence.failure}${tries}`;
    return `${request} →${switched} ${evidence.status}${evidence.errorCode ? ` ${evidence.errorCode}` : ''}${tries}`;
  }

  response(exchange: Exchange, what: string): ResponseExchange {
    if (exchange.kind === 'failure') this.noAnswer(exchange, what);
    return exchange;
  }

  /** Ends the rule as an ERROR: without an answer of the target's own there is no evidence either way. */
  noAnswer(exchange: Exchange, what: string): never {
    const none =
      exchange.kind === 'failure' && onlyTransient(exchange)
        ? 'only transient answers (a front, not the target, answered)'
        : 'no HTTP answer';
    throw new Inconclusive(
      this.#namer.show(`${what}: ${none}, so the rule could not be checked. ${this.describe(exchange)}`),
    );
  }

  /** A 200 answer with a JSON body: the request was served. */
  served(exchange: Exchange, what: string): ResponseExchange {
    const response = this.response(exchange, what);
    if (response.status !== 200)
      this.fail(`${what}: expected 200, got ${response.status}. ${this.describe(response)}`, response);
    if (!isJsonContentType(response)) {
      this.fail(
        `${what}: expected a JSON content type, got "${response.headers['content-type'] ?? 'none'}".`,
        response,
      );
    }
    try {
      JSON.parse(response.bodyText);
    } catch {
      this.fail(`${what}: the body is not valid JSON.`, response);
    }
    return response;
  }

  /**
   * No value of these tenants' data appears in the answer's body or headers — beyond those the
   * `baseline` answer already holds, when one is given: then only a change of what is served fails.
   */
  noDataOf(
    exchange: Exchange,
    tenants: readonly (TenantValues | undefined)[],
    what: string,
    baseline?: Exchange,
  ): void {
    if (exchange.kind === 'failure') this.noAnswer(exchange, what);
    const base = baseline && this.response(baseline, `${what} (the same request without them)`);
    const textOf = (answer: ResponseExchange): string => answerText(answer.headers, answer.bodyText);
    const text = textOf(exchange);
    for (const tenant of tenants) {
      if (!tenant) continue;
      const alreadyServed = new Set(base ? dataOf(textOf(base), tenant, Infinity) : []);
      const leaked = dataOf(text, tenant, Infinity)
        .filter((value) => !alreadyServed.has(value))
        .slice(0, 3);
      if (leaked.length > 0) {
        this.leak(
          `${what}: the answer holds data of ${tenant.label}: ${leaked.map((value) => JSON.stringify(value)).join(', ')}. ${this.describe(exchange)}`,
          exchange,
        );
      }
    }
  }

  /**
   * No answer to a request sent without Authorization holds a tenant's data: every request needs
   * a key (spec §1, §5 Scheme 1), so a keyless request that gets data is a failure wherever the
   * suite sees it, whatever the rule that sent it asks of the answer.
   */
  noDataWithoutKey(exchanges: readonly Exchange[]): void {
    for (const exchange of exchanges) {
      if (exchange.kind !== 'response') continue;
      if (carriesAuthorization(exchange.request.headers)) continue;
      this.noDataOf(
        exchange,
        this.#tenants,
        'A request sent without Authorization (a keyless request that gets data is a failure wherever the suite sees it)',
      );
    }
  }

  /**
   * Rejected: an HTTP error status (4xx/5xx, no redirect), with no data of `tenants`; with
   * `codes`, the body's `error.code` must be one of them. `allowNoResponse`: a refusal (no
   * answer at all) is a rejection too — only for the rules whose statement says so.
   */
  rejected(
    exchange: Exchange,
    what: string,
    options: {
      codes?: readonly string[];
      /** Default: the data of both tenants the suite knows. */
      noDataOf?: readonly (TenantValues | undefined)[];
      allowNoResponse?: boolean;
    } = {},
  ): void {
    if (exchange.kind === 'failure') {
      if (options.allowNoResponse && !options.codes && isRefusal(exchange)) return;
      this.noAnswer(exchange, what);
    }
    this.noDataOf(exchange, options.noDataOf ?? this.#tenants, what);
    // The same predicate as the run's checker: a 304 to a conditional request hands the client its
    // stored copy of the data, so it is a leak, not merely a status other than a rejection.
    const confirmed = confirmedCopy(exchange.status, exchange.request.headers);
    if (confirmed !== undefined)
      this.leak(
        `${what}: answered 304 Not Modified to ${confirmed}, which confirms the client's stored copy of the tenant's data: data in effect, without a valid key. ${this.describe(exchange)}`,
        exchange,
      );
    if (exchange.status < 400)
      this.fail(
        `${what}: expected a rejection (4xx), got ${exchange.status}. ${this.describe(exchange)}`,
        exchange,
      );
    if (options.codes) {
      const code = errorCode(exchange);
      if (!code || !options.codes.includes(code)) {
        this.fail(
          `${what}: expected error.code ${options.codes.join(' or ')}, got ${code ? JSON.stringify(code) : 'no error code'}. ${this.describe(exchange)}`,
          exchange,
        );
      }
    }
  }

  /**
   * Judges each probe in turn and goes on after one fails, so that every probe of the rule is sent
   * and recorded: the rule fails with every failure found (their messages and evidence together).
   * When none failed but one could not be judged (no answer), it ends as that ERROR.
   */
  async each<T>(probes: Iterable<T>, judge: (probe: T) => Promise<void> | void): Promise<void> {
    const failures: ConformanceFailure[] = [];
    let undecided: Inconclusive | undefined;
    for (const probe of probes) {
      try {
        await judge(probe);
      } catch (error) {
        if (error instanceof ConformanceFailure) failures.push(error);
        else if (error instanceof Inconclusive) undecided ??= error;
        else throw error;
      }
    }
    const [first] = failures;
    if (failures.length > 1)
      throw new ConformanceFailure(
        failures.map((failure) => failure.message).join('\n'),
        failures.flatMap((failure) => failure.evidence),
        failures.some((failure) => failure.leak),
      );
    if (first) throw first;
    if (undecided) throw undecided;
  }

  status(exchange: Exchange, expected: readonly number[], what: string): ResponseExchange {
    const response = this.response(exchange, what);
    if (!expected.includes(response.status)) {
      this.fail(
        `${what}: expected status ${expected.join(' or ')}, got ${response.status}. ${this.describe(response)}`,
        response,
      );
    }
    return response;
  }

  /** The header is present and matches `pattern`. */
  header(exchange: Exchange, name: string, pattern: RegExp, what: string): void {
    const response = this.response(exchange, what);
    const value = response.headers[name.toLowerCase()];
    if (value === undefined || !pattern.test(value)) {
      this.fail(
        `${what}: expected a ${name} header matching ${String(pattern)}, got ${value === undefined ? 'none' : JSON.stringify(value)}. ${this.describe(response)}`,
        response,
      );
    }
  }
}
