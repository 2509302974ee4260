// The OpenAPI 3.1 document of the reference server's tenant API, built from the two sources the
// server itself answers from: the JSON Schemas of schemas/ (payloads) and the error catalog of
// reference-server/http/errors.ts (every error status, code, message and header). The route's methods
// and permission come from the server's route table. Nothing here is a second copy of them.
import type { ApiErrorCode } from '../../reference-server/http/errors.ts';
import { DEFAULT_FIXTURES_FILE, loadFixtures } from '../../reference-server/store/fixtures.ts';
import { SANDBOX_PREFIX } from '../../reference-server/http/hosts.ts';
import { findRoute } from '../../reference-server/api/request-pipeline.ts';
import { componentSchemas } from './json-schema.ts';
import {
  HEADER_COMPONENTS,
  commonHeaders,
  documentedCodes,
  errorResponses,
  type NamedResponse,
} from './error-responses.ts';

export type OpenApiDocument = Record<string, unknown>;

/** The path of the document, relative to the servers' `/v1`. */
const RESOURCE_PATH = '/customers';
const API_VERSION = 'v1';
/** Every method an OpenAPI Path Item can describe. */
const OPENAPI_METHODS = ['get', 'head', 'post', 'put', 'patch', 'delete', 'options', 'trace'] as const;

/** Answered before the route is known, so to any method (README "Check order"). */
const BEFORE_ROUTE: readonly ApiErrorCode[] = [
  'bad_request',
  'request_timeout',
  'uri_too_long',
  'request_header_fields_too_large',
  'misdirected_request',
  'https_required',
  'missing_authorization_header',
  'invalid_api_key',
  'not_found',
];

export function buildOpenApiDocument(): OpenApiDocument {
  const route = findRoute(`/${API_VERSION}${RESOURCE_PATH}`);
  if (!route) throw new Error(`The reference server has no route for /${API_VERSION}${RESOURCE_PATH}.`);
  const allowed = route.methods.map((method) => method.toLowerCase());
  const codesOf = (method: string): ApiErrorCode[] =>
    allowed.includes(method)
      ? [...BEFORE_ROUTE, 'insufficient_permissions']
      : [...BEFORE_ROUTE, 'method_not_allowed'];
  assertEveryCodeAnswered(OPENAPI_METHODS.flatMap(codesOf));

  const responses: Record<string, unknown> = { CustomerList: customerListResponse() };
  const pathItem: Record<string, unknown> = {};
  for (const method of OPENAPI_METHODS) {
    const named = errorResponses(codesOf(method));
    for (const { name, response } of named) {
      if (name in responses && JSON.stringify(responses[name]) !== JSON.stringify(response)) {
        throw new Error(`Two different responses are both named ${name}.`);
      }
      responses[name] = response;
    }
    pathItem[method] = allowed.includes(method)
      ? readOperation(method, route.permission, named)
      : notAllowedOperation(method, route.methods, named);
  }

  return {
    openapi: '3.1.0',
    info: {
      title: 'Tenant API (reference server)',
      version: API_VERSION,
      description: [
        "The multi-tenant business API's access and authentication rules as the reference server of the tenant-auth-conformance kit answers them.",
        'Every request is authenticated with an API key as `Authorization: Bearer <key>`, over HTTPS only; the tenant is the host name, never a header or parameter. A request that fails a check gets the JSON error `{"error":{"code","message"}}` and no data. The checks run in this order: request-target length, `Host`, TLS SNI = `Host`, `Authorization`, the key within the tenant and environment of the host, the route, the permission.',
        'Generated from schemas/*.schema.json and reference-server/http/errors.ts by scripts/generate-openapi.ts (`npm run openapi`); do not edit it by hand.',
      ].join('\n\n'),
    },
    servers: [
      server('https://{tenant}.api.{domain}/v1', 'Production API of a tenant'),
      server(`https://${SANDBOX_PREFIX}{tenant}.api.{domain}/v1`, 'Sandbox API of a tenant'),
    ],
    security: [{ bearerAuth: [] }],
    tags: [{ name: 'customers', description: "The customers of the key's tenant and environment." }],
    paths: { [RESOURCE_PATH]: pathItem },
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'mbk_prod_<32 base62> (production) or mbk_dev_<32 base62> (sandbox)',
          description:
            'An API key of the tenant and environment of the host, made under Settings → API → API Keys. Never in the URL: a key in a query parameter is ignored.',
        },
      },
      schemas: componentSchemas(['customers.schema.json', 'error.schema.json']),
      headers: HEADER_COMPONENTS,
      responses,
    },
  };
}

function server(url: string, description: string): Record<string, unknown> {
  return {
    url,
    description,
    variables: {
      tenant: {
        default: 'acme',
        description: "The tenant's subdomain: lowercase words, hyphens allowed.",
      },
      domain: {
        default: 'localhost:8443',
        description: "The service's domain; for the reference server started by `npm start`, localhost:8443.",
      },
    },
  };
}

function readOperation(
  method: string,
  permission: string,
  errors: readonly NamedResponse[],
): Record<string, unknown> {
  const isHead = method === 'head';
  return {
    tags: ['customers'],
    operationId: isHead ? 'headCustomers' : 'listCustomers',
    summary: isHead ? 'The headers of the customer list' : 'List the customers',
    description: [
      isHead
        ? 'The status and headers GET would answer, without content (RFC 9110 §9.3.2).'
        : "Every customer of the key's tenant and environment, in one page.",
      `Needs a key with the \`${permission}\` permission.`,
    ].join(' '),
    responses: { '200': responseRef('CustomerList'), ...errorRefs(errors) },
  };
}

function notAllowedOperation(
  method: string,
  allowed: readonly string[],
  errors: readonly NamedResponse[],
): Record<string, unknown> {
  return {
    tags: ['customers'],
    operationId: `${method}Customers`,
    summary: `${method.toUpperCase()} is not allowed`,
    description: `The resource answers only ${allowed.join(' and ')}. With a valid key, ${method.toUpperCase()} gets 405 \`method_not_allowed\`; without one, the authentication errors of every request.`,
    responses: errorRefs(errors),
  };
}

function customerListResponse(): Record<string, unknown> {
  const fixtures = loadFixtures(DEFAULT_FIXTURES_FILE);
  const customers = fixtures.tenants[0]?.customers.production.slice(0, 1) ?? [];
  return {
    description: "The customers of the key's tenant and environment.",
    headers: commonHeaders(),
    content: {
      'application/json': {
        schema: { $ref: '#/components/schemas/CustomersResponse' },
        example: { object: 'list', data: customers, has_more: false },
      },
    },
  };
}

function errorRefs(errors: readonly NamedResponse[]): Record<string, unknown> {
  return Object.fromEntries(errors.map(({ name, status }) => [String(status), responseRef(name)]));
}

function responseRef(name: string): Record<string, string> {
  return { $ref: `#/components/responses/${name}` };
}

function assertEveryCodeAnswered(answered: readonly ApiErrorCode[]): void {
  const missing = documentedCodes().filter((code) => !answered.includes(code));
  if (missing.length > 0) {
    throw new Error(
      `Error codes of reference-server/http/errors.ts that no operation of the OpenAPI document answers: ${missing.join(', ')}. Place them in scripts/openapi/document.ts.`,
    );
  }
}
