// Every error the admin API answers, in the API's error shape (`{"error":{"code","message"}}`),
// built in one place. The codes are the admin API's own; they never appear on a tenant API host.
// Their rows and answers are of the tenant API's kind (http/errors.ts): only the words differ.
import { API_ERRORS, errorAnswer, type ErrorDefinition, type JsonAnswer } from '../http/errors.ts';

export const ADMIN_ERRORS = {
  admin_api_disabled: {
    status: 404,
    message:
      'The admin API is off on this server: start it with a data directory (--data-dir) or with REFERENCE_ADMIN_TOKEN set.',
  },
  admin_unauthorized: {
    status: 401,
    message:
      'Send the admin token as "Authorization: Bearer <token>". It is in admin-token in the data directory, or in REFERENCE_ADMIN_TOKEN. API keys are not accepted here.',
    headers: { 'WWW-Authenticate': 'Bearer realm="admin"' },
  },
  tenant_not_found: { status: 404, message: 'No tenant with this id is served. GET /v1/tenants lists them.' },
  api_keys_disabled: {
    status: 403,
    message: 'The API keys feature is disabled for this tenant: it has no keys, and none can be created.',
  },
  key_not_found: { status: 404, message: 'This tenant has no key with this id.' },
  key_revoked: {
    status: 409,
    message: 'This key is revoked and cannot be rotated. Create a new key instead.',
  },
  invalid_request: { status: 400, message: 'The request body is not a valid request.' },
  invalid_json: { status: 400, message: 'The request body is not valid JSON.' },
  unsupported_media_type: { status: 415, message: 'Send the request body as application/json.' },
  payload_too_large: {
    status: 413,
    message: 'The request body is larger than the admin API accepts (16 KiB).',
  },
  journal_disabled: {
    status: 404,
    message: 'The client journal is off on this server: it was started with a journal capacity of 0.',
  },
  not_found: { status: 404, message: 'No admin endpoint exists at this path. See docs/key-management.md.' },
  method_not_allowed: { status: 405, message: 'This method is not allowed on this endpoint.' },
  internal_error: API_ERRORS.internal_error,
} as const satisfies Record<string, ErrorDefinition>;

export type AdminErrorCode = keyof typeof ADMIN_ERRORS;

export type AdminResponse = JsonAnswer<AdminErrorCode>;

/** The answer of an admin API error code, with `detail` and `headers` as `errorAnswer` takes them. */
export function adminError(
  code: AdminErrorCode,
  detail?: string,
  headers: Record<string, string> = {},
): AdminResponse {
  return errorAnswer(ADMIN_ERRORS[code], code, detail, headers);
}
