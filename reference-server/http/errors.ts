// The JSON answers of the reference server, and every error it answers in JSON, in one table: the
// tenant API's and the listeners' codes, and the admin API's. A row gives a code its status and
// the RFC 6750 challenge where it applies, the message of each surface that answers it (the body
// `{"error":{"code","message"}}` of spec §7) and the header fields it always carries there. A code
// both surfaces answer (`not_found`, `method_not_allowed`, `internal_error`) is one row, with each
// surface's own words; a code one surface alone answers has only its message, so the other cannot
// send it (`ApiErrorCode`, `AdminErrorCode`).
import type { ErrorBody } from '../../schemas/generated/error.ts';

export type BearerChallengeError = 'invalid_token' | 'insufficient_scope';

/** Who answers in JSON: the tenant API (with the listeners and the front door), or the admin API. */
export type Surface = 'api' | 'admin';

/** One row of the error table: what an error code answers, on each surface that answers it. */
export interface ErrorRow extends Partial<Record<Surface, string>> {
  status: number;
  /** RFC 6750 §3: the `WWW-Authenticate: Bearer` challenge of an authentication failure. */
  challenge?: { error?: BearerChallengeError };
  /** Header fields the code always carries on a surface (`Allow`, a challenge of another realm). */
  headers?: Partial<Record<Surface, Record<string, string>>>;
}

export const REALM = 'api';

/** Both surfaces' message for a defect of the server. */
const INTERNAL_ERROR = 'The server failed to answer this request.';

/**
 * Every error code, with its message on each surface that answers it: `api` for the tenant API
 * (and the listeners and the front door), `admin` for the admin API.
 */
export const ERRORS = {
  // The tenant API's codes. First the three of spec §7, with its example messages.
  missing_authorization_header: { status: 401, api: 'Authorization header is required.', challenge: {} },
  invalid_api_key: {
    status: 401,
    api: 'The provided API key is invalid.',
    challenge: { error: 'invalid_token' },
  },
  insufficient_permissions: {
    status: 403,
    api: 'You do not have permission to access this resource.',
    challenge: { error: 'insufficient_scope' },
  },
  // Codes for situations the spec leaves "not shown"; the reference's choice (see the README).
  https_required: {
    status: 403,
    api: 'This API is served over HTTPS only. Send the request to the https:// address instead.',
  },
  misdirected_request: {
    status: 421,
    api: 'This server does not serve the requested host on this connection. Use https://{tenant}.api.{domain}/v1.',
  },
  bad_request: { status: 400, api: 'The request could not be parsed.' },
  // Codes the admin API answers too, in its own words; it names the methods its endpoint allows
  // in each answer (`Allow`), where the tenant API's one resource always allows the same two.
  not_found: {
    status: 404,
    api: 'No resource exists at this path. See GET /v1/customers.',
    admin: 'No admin endpoint exists at this path. See docs/key-management.md.',
  },
  method_not_allowed: {
    status: 405,
    api: 'This method is not allowed on this resource.',
    admin: 'This method is not allowed on this endpoint.',
    headers: { api: { Allow: 'GET, HEAD' } },
  },
  request_timeout: { status: 408, api: 'The request was not received in time.' },
  uri_too_long: { status: 414, api: 'The request URL is too long.' },
  request_header_fields_too_large: { status: 431, api: 'The request headers are too large.' },
  internal_error: { status: 500, api: INTERNAL_ERROR, admin: INTERNAL_ERROR },

  // The admin API's own codes: they never appear on a tenant API host.
  admin_api_disabled: {
    status: 404,
    admin:
      'The admin API is off on this server: start it with a data directory (--data-dir) or with REFERENCE_ADMIN_TOKEN set.',
  },
  admin_unauthorized: {
    status: 401,
    admin:
      'Send the admin token as "Authorization: Bearer <token>". It is in admin-token in the data directory, or in REFERENCE_ADMIN_TOKEN. API keys are not accepted here.',
    headers: { admin: { 'WWW-Authenticate': 'Bearer realm="admin"' } },
  },
  tenant_not_found: { status: 404, admin: 'No tenant with this id is served. GET /v1/tenants lists them.' },
  api_keys_disabled: {
    status: 403,
    admin: 'The API keys feature is disabled for this tenant: it has no keys, and none can be created.',
  },
  key_not_found: { status: 404, admin: 'This tenant has no key with this id.' },
  key_revoked: { status: 409, admin: 'This key is revoked and cannot be rotated. Create a new key instead.' },
  invalid_request: { status: 400, admin: 'The request body is not a valid request.' },
  invalid_json: { status: 400, admin: 'The request body is not valid JSON.' },
  unsupported_media_type: { status: 415, admin: 'Send the request body as application/json.' },
  payload_too_large: {
    status: 413,
    admin: 'The request body is larger than the admin API accepts (16 KiB).',
  },
  journal_disabled: {
    status: 404,
    admin: 'The client journal is off on this server: it was started with a journal capacity of 0.',
  },
} as const satisfies Record<string, ErrorRow>;

export type ErrorCode = keyof typeof ERRORS;

/** The codes a surface answers: those whose row has its message. */
export type ErrorCodeOf<S extends Surface> = {
  [Code in ErrorCode]: (typeof ERRORS)[Code] extends Record<S, string> ? Code : never;
}[ErrorCode];

export type ApiErrorCode = ErrorCodeOf<'api'>;
export type AdminErrorCode = ErrorCodeOf<'admin'>;

/** The codes a surface answers, in the order of the table. */
export function errorCodesOf<S extends Surface>(surface: S): ErrorCodeOf<S>[] {
  return (Object.keys(ERRORS) as ErrorCode[]).filter(
    (code): code is ErrorCodeOf<S> => messageOf(surface, code) !== undefined,
  );
}

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

/** What the admin API answers. */
export type AdminResponse = JsonAnswer<AdminErrorCode>;

export function errorBody(code: ApiErrorCode): ErrorBody {
  return { error: { code, message: ERRORS[code].api } };
}

/**
 * The answer of a code on a surface, built anew.
 * @param detail replaces the generic message where the request itself can be described (which
 *   field is wrong), never with a value the client sent.
 * @param headers header fields of this answer alone, after the row's own.
 */
export function errorAnswer<S extends Surface, Code extends ErrorCodeOf<S>>(
  surface: S,
  code: Code,
  detail?: string,
  headers: Record<string, string> = {},
): JsonAnswer<Code> {
  const row: ErrorRow = ERRORS[code];
  const message = messageOf(surface, code);
  if (message === undefined) {
    throw new Error(
      `The error code ${code} has no message for the ${surface} surface in the error table (http/errors.ts): add one to its row, or answer with one of the ${surface} surface's codes.`,
    );
  }
  const fields: Record<string, string> = { ...row.headers?.[surface] };
  if (row.challenge) fields['WWW-Authenticate'] = bearerChallenge(row.challenge.error);
  const body: ErrorBody = { error: { code, message: detail ?? message } };
  return { status: row.status, headers: { ...fields, ...headers }, body, errorCode: code };
}

/** The answer of an admin API error code, with `detail` and `headers` as `errorAnswer` takes them. */
export function adminError(
  code: AdminErrorCode,
  detail?: string,
  headers: Record<string, string> = {},
): AdminResponse {
  return errorAnswer('admin', code, detail, headers);
}

/**
 * The answer of an error code of the tenant API. It is the same for every request, so it is built
 * once and shared: frozen, so that no caller can alter the one every later request gets, and so
 * that the writer may serialise it once too (`constantResponse`).
 */
export function apiError(code: ApiErrorCode): ApiResponse {
  let response = ERROR_RESPONSES.get(code);
  if (!response) {
    response = constantResponse(errorAnswer('api', code));
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

function messageOf(surface: Surface, code: ErrorCode): string | undefined {
  return (ERRORS[code] as ErrorRow)[surface];
}

function bearerChallenge(error: BearerChallengeError | undefined): string {
  return error ? `Bearer realm="${REALM}", error="${error}"` : `Bearer realm="${REALM}"`;
}
