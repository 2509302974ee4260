// The JSON answers of the reference server, and every error of the tenant API and of the
// listeners, built in one place: the status, the `{"error":{"code","message"}}` body of spec §7, and
// the RFC 6750 challenge where it applies. The admin API's own codes (admin-api/admin-errors.ts)
// are defined and built the same way (`ErrorDefinition`, `errorAnswer`), in the same answer type.
import type { ErrorBody } from '../../schemas/generated/error.ts';

export type BearerChallengeError = 'invalid_token' | 'insufficient_scope';

/** One row of an error table: what an error code answers. */
export interface ErrorDefinition {
  status: number;
  message: string;
  /** RFC 6750 §3: the `WWW-Authenticate: Bearer` challenge of an authentication failure. */
  challenge?: { error?: BearerChallengeError };
  /** Header fields the code always carries (`Allow`, a challenge of another realm). */
  headers?: Record<string, string>;
}

export const REALM = 'api';

export const API_ERRORS = {
  // The three codes of spec §7, with its example messages.
  missing_authorization_header: { status: 401, message: 'Authorization header is required.', challenge: {} },
  invalid_api_key: {
    status: 401,
    message: 'The provided API key is invalid.',
    challenge: { error: 'invalid_token' },
  },
  insufficient_permissions: {
    status: 403,
    message: 'You do not have permission to access this resource.',
    challenge: { error: 'insufficient_scope' },
  },
  // Codes for situations the spec leaves "not shown"; the reference's choice (see the README).
  https_required: {
    status: 403,
    message: 'This API is served over HTTPS only. Send the request to the https:// address instead.',
  },
  misdirected_request: {
    status: 421,
    message:
      'This server does not serve the requested host on this connection. Use https://{tenant}.api.{domain}/v1.',
  },
  bad_request: { status: 400, message: 'The request could not be parsed.' },
  not_found: { status: 404, message: 'No resource exists at this path. See GET /v1/customers.' },
  method_not_allowed: {
    status: 405,
    message: 'This method is not allowed on this resource.',
    headers: { Allow: 'GET, HEAD' },
  },
  request_timeout: { status: 408, message: 'The request was not received in time.' },
  uri_too_long: { status: 414, message: 'The request URL is too long.' },
  request_header_fields_too_large: {
    status: 431,
    message: 'The request headers are too large.',
  },
  internal_error: { status: 500, message: 'The server failed to answer this request.' },
} as const satisfies Record<string, ErrorDefinition>;

export type ApiErrorCode = keyof typeof API_ERRORS;

/** A JSON answer of the API or the admin API; written to the socket by `writeApiResponse`. */
export interface JsonAnswer<Code extends string = string> {
  status: number;
  headers: Record<string, string>;
  body: unknown;
  /** Set when the response is an error, for the access log. */
  errorCode?: Code;
}

/** What the tenant API's pipeline answers. */
export type ApiResponse = JsonAnswer<ApiErrorCode>;

export function errorBody(code: ApiErrorCode): ErrorBody {
  return { error: { code, message: API_ERRORS[code].message } };
}

/**
 * The answer of a row of an error table, built anew.
 * @param detail replaces the generic message where the request itself can be described (which
 *   field is wrong), never with a value the client sent.
 * @param headers header fields of this answer alone, after the row's own.
 */
export function errorAnswer<Code extends string>(
  definition: ErrorDefinition,
  code: Code,
  detail?: string,
  headers: Record<string, string> = {},
): JsonAnswer<Code> {
  const fields: Record<string, string> = { ...definition.headers };
  if (definition.challenge) fields['WWW-Authenticate'] = bearerChallenge(definition.challenge.error);
  const body: ErrorBody = { error: { code, message: detail ?? definition.message } };
  return { status: definition.status, headers: { ...fields, ...headers }, body, errorCode: code };
}

/**
 * The answer of an error code. It is the same for every request, so it is built once and shared:
 * frozen, so that no caller can alter the one every later request gets, and so that the writer
 * may serialise it once too (`constantResponse`).
 */
export function apiError(code: ApiErrorCode): ApiResponse {
  let response = ERROR_RESPONSES.get(code);
  if (!response) {
    response = constantResponse(errorAnswer(API_ERRORS[code], code));
    ERROR_RESPONSES.set(code, response);
  }
  return response;
}

const ERROR_RESPONSES = new Map<ApiErrorCode, ApiResponse>();

/**
 * Marks an answer as the same for every request that gets it, by freezing it (its headers and
 * the top level of its body too). `writeApiResponse` serialises a frozen answer once and reuses
 * the bytes; an answer built per request (not frozen) is serialised every time.
 */
export function constantResponse(response: ApiResponse): ApiResponse {
  Object.freeze(response.headers);
  Object.freeze(response.body);
  return Object.freeze(response);
}

function bearerChallenge(error: BearerChallengeError | undefined): string {
  return error ? `Bearer realm="${REALM}", error="${error}"` : `Bearer realm="${REALM}"`;
}
