// What a probe sent and got back, in the one shape every check and every report reads.

export interface RequestSummary {
  method: string;
  url: string;
  /** Header names only: values may be keys. */
  headerNames: string[];
  /** What makes this request special, e.g. "Host: globex… over a connection for acme…". */
  note?: string;
  /**
   * The rule takes a refusal of this request as a pass (plain HTTP; a host that should not
   * exist), so getting no answer here says nothing of whether the target is still up.
   */
  refusalExpected?: boolean;
}

export interface ResponseExchange {
  kind: 'response';
  request: RequestSummary;
  status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  bodyText: string;
}

/** No HTTP answer at all: refused, reset, TLS failure, time-out. */
export interface FailedExchange {
  kind: 'failure';
  request: RequestSummary;
  error: string;
  /** Never sent: the target had stopped answering (answer-watch.ts). Never a refusal. */
  notSent?: true;
}

export type Exchange = ResponseExchange | FailedExchange;

export function jsonBody(exchange: ResponseExchange): unknown {
  try {
    return JSON.parse(exchange.bodyText) as unknown;
  } catch {
    return undefined;
  }
}

/** `error.code` of a spec §7 error body, if the body is one. */
export function errorCode(exchange: ResponseExchange): string | undefined {
  const body = jsonBody(exchange) as { error?: { code?: unknown } } | undefined;
  return typeof body?.error?.code === 'string' ? body.error.code : undefined;
}

export function isJsonContentType(exchange: ResponseExchange): boolean {
  const type = (exchange.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  return type === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(type);
}
