// Every error the admin API answers, in the API's error shape (`{"error":{"code","message"}}`),
// built in one place. The codes are the admin API's own; they never appear on a tenant API host.
import type { ErrorBody } from '../../schemas/generated/error.ts';

interface AdminErrorDefinition {
  status: number;
  message: string;
  headers?: Record<string, string>;
}

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
  internal_error: { status: 500, message: 'The server failed to answer this request.' },
} as const satisfies Record<string, AdminErrorDefinition>;

export type AdminErrorCode = keyof typeof ADMIN_ERRORS;

export interface AdminResponse {
  status: number;
  headers: Record<string, string>;
  body: unknown;
  errorCode?: AdminErrorCode;
}

/**
 * @param detail replaces the generic message where the request itself can be described (which
 *   field is wrong), never with a value the client sent.
 */
export function adminError(
  code: AdminErrorCode,
  detail?: string,
  headers: Record<string, string> = {},
): AdminResponse {
  const definition: AdminErrorDefinition = ADMIN_ERRORS[code];
  const body: ErrorBody = { error: { code, message: detail ?? definition.message } };
  return { status: definition.status, headers: { ...definition.headers, ...headers }, body, errorCode: code };
}
