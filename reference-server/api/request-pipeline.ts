// The path of an API request through the reference server, in the order of the decisions table
// (docs/decisions.md): request-target length → host → header multiplicity → presence → syntax →
// key lookup in (tenant, environment) → route → permission → handler. Each step either answers an error or passes on; a request that
// fails a step never reaches data.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { Customer, Permission } from '../../schemas/generated/fixtures.ts';
import type { CustomersResponse } from '../../schemas/generated/customers.ts';
import type { StoredKey } from '../store/key-entries.ts';
import { apiError, constantResponse, type ApiResponse } from './errors.ts';
import type { ApiHost } from '../http/hosts.ts';
import { pathOf } from '../http/request-target.ts';
import type { AuthorizationHeader } from './authorization-header.ts';
import type { Transport } from './response-writer.ts';
import type { ensureCertificates } from '../listeners/tls.ts';
import type { TenantData } from '../store/tenant-data.ts';
import { cursorOf, cursorParameter, type ListPosition } from './customer-pages.ts';

/**
 * The replaceable steps of an API request's path, in one object: the server runs CORRECT_STEPS
 * (steps.ts), with any of them replaced by `ReferenceServerOptions.steps`.
 */
export interface ServerSteps {
  /** The lines naming the host a request is for (`hostLines`: Host, or HTTP/2's :authority). */
  hostsOf(req: IncomingMessage): string[];
  /** The tenant and environment of an API host name, from the name alone (spec §5). */
  tenantOf(req: IncomingMessage, hostname: string, context: PipelineContext): ApiHost | undefined;
  /** Whether the connection was opened (TLS SNI) for `hostname` (RFC 9110 §7.4). */
  sniMatches(req: IncomingMessage, hostname: string): boolean;
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
  /** Writes an answer of the HTTPS API. */
  writeResponse(res: ServerResponse, response: ApiResponse, transport: Transport): void;
  /** What the plain-HTTP listener answers (spec §5 Scheme 4: plain HTTP is rejected). */
  plainHttpAnswer(req: IncomingMessage, context: PipelineContext): ApiResponse;
  /** The CA and the leaf certificate the HTTPS listener serves. */
  certificates: typeof ensureCertificates;
}

export interface PipelineContext {
  domain: string;
  data: TenantData;
  /** How each step is done: CORRECT_STEPS (steps.ts) unless the server was given replacements. */
  steps: ServerSteps;
  /** Customers per page of GET /v1/customers (customer-pages.ts); undefined: the whole list. */
  customersPageSize?: number;
}

/** What the access log records of a request: never the key, only its public id. */
export interface RequestFacts {
  tenant?: string;
  environment?: string;
  keyId?: string;
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
 * @param hostname the request's host name (`requestHostname`), read once by the server for both
 *   the panel and admin sites and this pipeline; undefined for no `Host` or more than one.
 */
export function handleApiRequest(
  req: IncomingMessage,
  hostname: string | undefined,
  context: PipelineContext,
  facts: RequestFacts,
): ApiResponse {
  if ((req.url ?? '').length > MAX_URL_LENGTH) return apiError('uri_too_long');
  if (hostname === undefined) return apiError('bad_request');
  const { steps } = context;
  const host = steps.tenantOf(req, hostname, context);
  // RFC 9110 §7.4: a connection opened for one host (TLS SNI) is not used for another.
  if (!host || !steps.sniMatches(req, hostname)) return apiError('misdirected_request');
  facts.tenant = host.tenant;
  facts.environment = host.environment;

  const authorization = steps.authorizationOf(req);
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

  return route(req, host, key, context);
}

function route(req: IncomingMessage, host: ApiHost, key: StoredKey, context: PipelineContext): ApiResponse {
  const matched = context.steps.findRoute(pathOf(req.url ?? '/'));
  if (!matched) return apiError('not_found');
  if (!matched.methods.includes(req.method ?? '')) return apiError('method_not_allowed');
  if (!context.steps.permits(key, matched.permission)) return apiError('insufficient_permissions');
  return matched.handle(req, host, context);
}

export function findRoute(path: string): Route | undefined {
  for (const route of ROUTES) if (route.path === path) return route;
  return undefined;
}

function ok(body: unknown): ApiResponse {
  return { status: 200, headers: {}, body };
}

/** Whether the connection's TLS SNI names `hostname` (the panel and admin hosts check it too). */
export function sniMatches(req: IncomingMessage, hostname: string): boolean {
  const servername = (req.socket as TLSSocket).servername;
  return typeof servername === 'string' && servername.toLowerCase() === hostname;
}
