// What a fault of the reference server is, and the ways of building its faulty steps from the
// correct ones (CORRECT_STEPS). Every fault replaces one or more steps of the server
// (`ReferenceServerOptions.steps`); the server itself knows nothing of faults or rules.
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { RuleId } from '../conformance/catalog/rules.ts';
import type { ApiKey, Customer, Fixtures } from '../schemas/generated/fixtures.ts';
import type { StoredKey } from '../reference-server/store/key-entries.ts';
import { ALL_PERMISSIONS, permissionsOf } from '../reference-server/store/key-permissions.ts';
import type { ApiErrorCode, ApiResponse } from '../reference-server/http/errors.ts';
import type { ApiHost, Environment } from '../reference-server/http/hosts.ts';
import { customersList, type PipelineContext } from '../reference-server/api/request-pipeline.ts';
import { CORRECT_STEPS, type ServerSteps } from '../reference-server/steps/server-steps.ts';
import type { KnockOn } from './knock-on.ts';

export const CORRECT = CORRECT_STEPS;

export interface Fault {
  /** What the faulty variant does wrong. */
  description: string;
  /** The rules the fault exists for: against the variant each fails (an ADVISORY one warns). */
  catches: readonly RuleId[];
  /**
   * Further rules that fail (or warn) as a direct consequence of this fault alone, each with why.
   * Consequences that follow for every rule of a kind are `knockOn`, not listed here.
   */
  alsoFails?: Readonly<Partial<Record<RuleId, string>>>;
  /** What the fault does to every rule of a kind (knock-on.ts): those rules fail too, derived. */
  knockOn?: KnockOn;
  /**
   * The suite's preflight stops the run at this stage (verdict SETUP ERROR, no rule runs): the
   * fault is caught there, and `catches` names the rule the preflight's check stands for.
   */
  stopsPreflightAt?: 'TLS';
  /** The faulty step(s). The fixtures give a variant the clear keys the correct server never keeps. */
  steps(fixtures: Fixtures): Partial<ServerSteps>;
}

/** The query parameters a careless server reads a key from (spec §5 Scheme 5 forbids it). */
export const URL_KEY_PARAMETERS = ['access_token', 'api_key', 'apikey', 'key', 'token'];
/** Base of `new URL(req.url, …)`: only the path and query of a request target are read. */
export const ANY_ORIGIN = 'https://request-target.invalid';

export function isFullAccess(key: StoredKey): boolean {
  return ALL_PERMISSIONS.every((permission) => key.permissions.has(permission));
}

/** Whether a request came over HTTP/2: the faults of HTTP/2's own leave HTTP/1.1 as it is. */
export { overHttp2 } from '../reference-server/http/field-lines.ts';

export function headerValue(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return typeof value === 'string' ? value : undefined;
}

/** The customers of a host's tenant and environment, as the correct route reads them. */
export function customersOf(context: PipelineContext, host: ApiHost): readonly Customer[] {
  return context.data.customers(host.tenant, host.environment);
}

/**
 * Routes whose customers route lists what `pick` chooses (from the request, say) instead of the
 * authenticated host's own customers: the faults of tenant isolation.
 */
export function servingCustomers(
  pick: (req: IncomingMessage, host: ApiHost, context: PipelineContext) => readonly Customer[],
): Pick<ServerSteps, 'findRoute'> {
  return {
    findRoute: (path) => {
      const route = CORRECT.findRoute(path);
      return route && { ...route, handle: (req, host, context) => customersList(pick(req, host, context)) };
    },
  };
}

/** The key `token` is in any tenant, looked up in the host's environment. */
export function inAnyTenant(context: PipelineContext, host: ApiHost, token: string): StoredKey | undefined {
  for (const tenant of context.data.tenantIds) {
    const key = CORRECT.findKey(context, { ...host, tenant }, token);
    if (key) return key;
  }
  return undefined;
}

/**
 * A key lookup that, after the correct one, compares the presented key with the fixture keys of
 * the host's tenant and environment in clear, with `same` instead of an exact HMAC match.
 */
export function clearKeyLookup(
  fixtures: Fixtures,
  same: (presented: string, secret: string) => boolean,
): ServerSteps['findKey'] {
  return (context, host, token) => {
    const correct = CORRECT.findKey(context, host, token);
    if (correct) return correct;
    const keys: ApiKey[] = fixtures.tenants.find((tenant) => tenant.id === host.tenant)?.keys ?? [];
    const key = keys.find(
      (candidate) =>
        candidate.environment === host.environment &&
        candidate.revoked !== true &&
        same(token, candidate.secret),
    );
    return (
      key && {
        id: key.id,
        tenant: host.tenant,
        environment: key.environment,
        permissions: permissionsOf(key),
        revoked: false,
      }
    );
  };
}

/** A lookup that, on the `api` environment's host, also accepts the tenant's keys of `keys`. */
export function alsoKeysOf(keys: Environment, api: Environment): ServerSteps['findKey'] {
  return (context, host, token) =>
    CORRECT.findKey(context, host, token) ??
    (host.environment === api ? CORRECT.findKey(context, { ...host, environment: keys }, token) : undefined);
}

/** A writer that changes the answers of the error `code` (status, headers, …) before sending them. */
export function changingAnswers(
  code: ApiErrorCode,
  change: Partial<ApiResponse>,
): ServerSteps['writeResponse'] {
  return rewritingAnswers((response) =>
    response.errorCode === code ? { ...response, ...change } : response,
  );
}

/** A writer that rewrites each answer before the correct writer sends it. */
export function rewritingAnswers(
  rewrite: (response: ApiResponse, req: IncomingMessage) => ApiResponse,
): ServerSteps['writeResponse'] {
  return (res, response, transport) => CORRECT.writeResponse(res, rewrite(response, res.req), transport);
}

/**
 * A writer that edits the header fields the correct writer chose, just before they are sent: the
 * correct writer sets them in one `writeHead` call, so that call is intercepted for this answer.
 */
export function editingHeaders(
  edit: (headers: OutgoingHttpHeaders, response: ApiResponse) => OutgoingHttpHeaders,
): ServerSteps['writeResponse'] {
  return (res, response, transport) => {
    const writeHead = res.writeHead.bind(res) as (
      status: number,
      headers: OutgoingHttpHeaders,
    ) => ServerResponse;
    res.writeHead = ((status: number, headers: OutgoingHttpHeaders) =>
      writeHead(status, edit(headers, response))) as ServerResponse['writeHead'];
    CORRECT.writeResponse(res, response, transport);
  };
}
