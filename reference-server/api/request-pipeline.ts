// The path of an API request through the reference server, in the order of the decisions table
// (docs/decisions.md), after the front door has answered a misdirected request 421: request-target
// length → host → header multiplicity → presence → syntax →
// key lookup in (tenant, environment) → route → permission → handler. Each step either answers an error or passes on; a request that
// fails a step never reaches data. Which host a request names, and whether it was misdirected, is
// decided before (addressing/address.ts).
import type { IncomingMessage } from 'node:http';
import type { Customer, Permission } from '../../schemas/generated/fixtures.ts';
import type { CustomersResponse } from '../../schemas/generated/customers.ts';
import type { StoredKey } from '../store/key-entries.ts';
import { apiError, constantResponse, type ApiResponse } from '../http/errors.ts';
import type { ApiHost } from '../http/hosts.ts';
import { pathOf } from '../http/request-target.ts';
import type { AuthorizationHeader } from '../http/authorization-header.ts';
import type { HostContext, HostSteps } from '../addressing/address.ts';
import type { RequestFacts } from '../http/request-facts.ts';
import { cursorOf, cursorParameter, type ListPosition } from './customer-pages.ts';
import { validated } from './validators.ts';

/**
 * The replaceable steps of an API request's path: the server runs CORRECT_API_STEPS (steps.ts),
 * with any of them replaced by `ReferenceServerOptions.steps`. The host steps (`hostsOf`,
 * `tenantOf`, `sniMatches`) decide every request's address (addressing/address.ts). The steps of
 * the whole server (how an answer is written, plain HTTP's answer, the certificates) extend these
 * in steps/server-steps.ts.
 */
export interface ApiSteps extends HostSteps {
  /** The request's `Authorization` field lines, read as a Bearer credential or not. */
  authorizationOf(req: IncomingMessage): AuthorizationHeader;
  /** The active key `token` is within the host's tenant and environment, or undefined. */
  findKey(context: PipelineContext, host: ApiHost, token: string): StoredKey | undefined;
  /** The route of a request path (query removed), or undefined. */
  findRoute(path: string): Route | undefined;
  /**
   * Where a list cursor points, when it may be served on this host (`cursorOnItsHost`: only on the
   * host of the tenant and environment it was issued for); undefined refuses it.
   */
  cursorPosition(cursor: string, host: ApiHost): ListPosition | undefined;
  /** Whether the key's permissions allow the route's operation. */
  permits(key: StoredKey, permission: Permission): boolean;
}

export interface PipelineContext extends HostContext {
  /** How each step is done: CORRECT_API_STEPS (steps.ts) unless the server was given replacements. */
  steps: ApiSteps;
  /** Customers per page of GET /v1/customers (customer-pages.ts); undefined: the whole list. */
  customersPageSize?: number;
}

const API_VERSION_PREFIX = '/v1';

/** Longer request targets get 414 (a target beyond the header size limit gets 431 from Node). */
export const MAX_URL_LENGTH = 8 * 1024;

export interface Route {
  path: string;
  methods: readonly string[];
  permission: Permission;
  handle(req: IncomingMessage, host: ApiHost, context: PipelineContext): ApiResponse;
}

const ROUTES: readonly Route[] = [
  {
    path: `${API_VERSION_PREFIX}/customers`,
    methods: ['GET', 'HEAD'],
    permission: 'customers:read',
    handle: (req, host, context) =>
      context.customersPageSize === undefined
        ? customersAnswer(context.data.customers(host.tenant, host.environment))
        : customersPage(req, host, context, context.customersPageSize),
  },
];

/**
 * One page of a tenant's customers: the first, or the one the request's cursor points at; the
 * next one named by `Link: <…>; rel="next"` while `has_more`. A cursor the `cursorPosition` step
 * refuses (issued for another tenant or environment, or no cursor at all) is a bad request.
 */
function customersPage(
  req: IncomingMessage,
  host: ApiHost,
  context: PipelineContext,
  size: number,
): ApiResponse {
  const cursor = cursorParameter(req);
  let position: ListPosition = { tenant: host.tenant, environment: host.environment, offset: 0 };
  if (cursor !== undefined) {
    const pointed = context.steps.cursorPosition(cursor, host);
    if (!pointed) return apiError('bad_request');
    position = pointed;
  }
  const customers = context.data.customers(position.tenant, position.environment);
  if (position.offset > customers.length) return apiError('bad_request');
  const end = position.offset + size;
  const hasMore = end < customers.length;
  const page = ok({
    object: 'list',
    data: customers.slice(position.offset, end),
    has_more: hasMore,
  } satisfies CustomersResponse);
  if (hasMore)
    page.headers.Link = `<${API_VERSION_PREFIX}/customers?cursor=${cursorOf({ ...position, offset: end })}>; rel="next"`;
  return page;
}

/**
 * The answer listing a tenant's customers, built once per list: the lists of TenantData never
 * change while the server runs (keys change, customers do not), so their answer, JSON included
 * (see `constantResponse`), is shared by every request for that tenant and environment.
 */
function customersAnswer(customers: readonly Customer[]): ApiResponse {
  let answer = CUSTOMERS_ANSWERS.get(customers);
  if (answer) return answer;
  answer = constantResponse(customersList(customers));
  CUSTOMERS_ANSWERS.set(customers, answer);
  return answer;
}

/** The 200 answer listing `customers` (spec §6 list shape), built anew. */
export function customersList(customers: readonly Customer[]): ApiResponse {
  return ok({ object: 'list', data: [...customers], has_more: false } satisfies CustomersResponse);
}

const CUSTOMERS_ANSWERS = new WeakMap<readonly Customer[], ApiResponse>();

/**
 * @param facts the request's facts, its address decided (`requestFacts` of addressing/address.ts);
 *   the pipeline adds what it learns (tenant, key, `Authorization`, route).
 */
export function handleApiRequest(
  req: IncomingMessage,
  context: PipelineContext,
  facts: RequestFacts,
): ApiResponse {
  if ((req.url ?? '').length > MAX_URL_LENGTH) return apiError('uri_too_long');
  const { site } = facts.address;
  // A misdirected request (a host this server does not serve among them) never gets here: the
  // front door answers it 421. What is left without an API host is a request that named none.
  if (site.kind !== 'api') return apiError('bad_request');
  const { host } = site;
  facts.tenant = host.tenant;
  facts.environment = host.environment;
  const { steps } = context;
  // Looked up now for the journal's sake (a route's own path needs no closer look); answered after
  // the key, in the order of the decisions table.
  const matched = steps.findRoute(pathOf(req.url ?? '/'));
  facts.route = matched?.path;

  const authorization = steps.authorizationOf(req);
  facts.authorization = authorization;
  switch (authorization.kind) {
    case 'missing':
    case 'not-bearer':
      return apiError('missing_authorization_header');
    case 'duplicate':
    case 'malformed':
      return apiError('invalid_api_key');
  }
  const key = steps.findKey(context, host, authorization.token);
  if (!key) return apiError('invalid_api_key');
  facts.keyId = key.id;
  // In memory only (written to the data directory periodically): no disk write per request.
  context.data.keys.markUsed(key);

  return route(req, host, key, context, matched);
}

/**
 * Whether the request carries a key the host's tenant and environment accept: what a request
 * waiting for `100 Continue` needs (front-door/expect-continue.ts). Never marks the key used.
 */
export function carriesAcceptedKey(req: IncomingMessage, host: ApiHost, context: PipelineContext): boolean {
  const authorization = context.steps.authorizationOf(req);
  return (
    authorization.kind === 'bearer' && context.steps.findKey(context, host, authorization.token) !== undefined
  );
}

function route(
  req: IncomingMessage,
  host: ApiHost,
  key: StoredKey,
  context: PipelineContext,
  matched: Route | undefined,
): ApiResponse {
  if (!matched) return apiError('not_found');
  if (!matched.methods.includes(req.method ?? '')) return apiError('method_not_allowed');
  if (!context.steps.permits(key, matched.permission)) return apiError('insufficient_permissions');
  return validated(req, host, matched.handle(req, host, context));
}

export function findRoute(path: string): Route | undefined {
  for (const route of ROUTES) if (route.path === path) return route;
  return undefined;
}

function ok(body: unknown): ApiResponse {
  return { status: 200, headers: {}, body };
}
