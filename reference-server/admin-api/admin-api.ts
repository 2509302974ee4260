// The admin JSON API at https://admin.{domain}/v1: the panel's key management for programs (the
// conformance suite creates the keys a run needs and revokes them afterwards). It is authenticated
// by the admin token alone — an API key never opens it — and answers the API's error shape.
//   GET  /v1/tenants                              the tenants served
//   GET  /v1/tenants/{tenant}/keys[?environment=] the keys' metadata, never a secret
//   POST /v1/tenants/{tenant}/keys                create (NewKeyRequest) → CreatedKey, the only time the secret is sent
//   GET  /v1/tenants/{tenant}/keys/{id}           one key's metadata
//   POST /v1/tenants/{tenant}/keys/{id}/revoke    revoke at once (repeating it is harmless)
//   POST /v1/tenants/{tenant}/keys/{id}/rotate    a new key like it, and it revoked → RotatedKey
//   GET, DELETE /v1/journal                       the client journal (journal-api.ts)
//   GET, POST, DELETE /v1/behaviours              a client's test's behaviours (behaviours-api.ts)
// and, without any token and even with the admin API off, the tenant API's OpenAPI document:
//   GET  /openapi.json                            docs/openapi.json (openapi-document.ts)
import type { IncomingMessage } from 'node:http';
import type {
  ApiKeyList,
  CreatedKey,
  Environment,
  NewKeyRequest,
  RotatedKey,
} from '../../schemas/generated/api-key-management.ts';
import type { ErrorObject } from 'ajv';
import { describeSchemaErrors, jsonPath, validatorFor } from '../../schemas/validators.ts';
import { readJsonBody } from './json-body.ts';
import type { RequestFacts } from '../http/request-facts.ts';
import type { TenantAccount, TenantData } from '../store/tenant-data.ts';
import { adminError, type AdminResponse } from '../http/errors.ts';
import type { AdminTokenCheck } from './admin-token.ts';
import { isOpenApiRequest, openApiAnswer } from './openapi-document.ts';
import type { Journal } from '../journal/journal.ts';
import { handleJournalRequest } from './journal-api.ts';
import type { BehaviourTable } from '../behaviours/behaviour-table.ts';
import { BEHAVIOURS_PATH, handleBehavioursRequest } from './behaviours-api.ts';

export interface AdminContext {
  data: TenantData;
  /** Undefined when no admin token is configured: the admin API is then off. */
  token: AdminTokenCheck | undefined;
  /** Undefined when the server keeps no client journal. */
  journal?: Journal | undefined;
  /** What a client's tests added to the tenant API's answers. */
  behaviours?: BehaviourTable | undefined;
}

const MAX_BODY_BYTES = 16 * 1024;
const TENANTS = /^\/v1\/tenants$/;
const JOURNAL = '/v1/journal';
const KEYS = /^\/v1\/tenants\/([a-z0-9-]{1,63})\/keys$/;
const KEY = /^\/v1\/tenants\/([a-z0-9-]{1,63})\/keys\/(key_[a-z0-9_]{1,60})$/;
const KEY_ACTION = /^\/v1\/tenants\/([a-z0-9-]{1,63})\/keys\/(key_[a-z0-9_]{1,60})\/(revoke|rotate)$/;
const ENVIRONMENTS: readonly Environment[] = ['production', 'sandbox'];
const validateNewKey = validatorFor<NewKeyRequest>(
  'api-key-management.schema.json#/definitions/NewKeyRequest',
);

export async function handleAdminRequest(
  req: IncomingMessage,
  context: AdminContext,
  facts: RequestFacts,
): Promise<AdminResponse> {
  // Public documentation, with or without the admin API (openapi-document.ts).
  if (isOpenApiRequest(req)) return openApiAnswer(req);
  if (!context.token) return adminError('admin_api_disabled');
  if (!context.token.presentedBy(req)) return adminError('admin_unauthorized');
  const [path = '', query = ''] = (req.url ?? '/').split('?', 2);
  const method = req.method ?? '';

  if (path === JOURNAL) return handleJournalRequest(method, query, context.journal);
  if (path === BEHAVIOURS_PATH) {
    if (!context.behaviours) return adminError('not_found');
    return handleBehavioursRequest(req, context.behaviours);
  }
  if (TENANTS.test(path)) {
    if (method !== 'GET') return notAllowed('GET');
    return ok(200, { object: 'list', data: context.data.tenantIds.map((id) => context.data.account(id)) });
  }
  const keys = KEYS.exec(path);
  const key = KEY.exec(path);
  const action = KEY_ACTION.exec(path);
  const tenantId = (keys ?? key ?? action)?.[1];
  if (tenantId === undefined) return adminError('not_found');
  facts.tenant = tenantId;
  const account = context.data.account(tenantId);
  if (!account) return adminError('tenant_not_found');
  if (!account.apiKeysEnabled) return adminError('api_keys_disabled');

  if (keys) {
    if (method === 'GET') return listKeys(context, account, query);
    if (method === 'POST') return createKey(req, context, account, facts);
    return notAllowed('GET, POST');
  }
  const keyId = (key ?? action)?.[2] ?? '';
  facts.keyId = keyId;
  if (key) {
    if (method !== 'GET') return notAllowed('GET');
    const found = context.data.keys.get(account.id, keyId);
    return found ? ok(200, found) : adminError('key_not_found');
  }
  if (method !== 'POST') return notAllowed('POST');
  return action?.[3] === 'revoke' ? revokeKey(context, account, keyId) : rotateKey(context, account, keyId);
}

function listKeys(context: AdminContext, account: TenantAccount, query: string): AdminResponse {
  const environment = new URLSearchParams(query).get('environment');
  if (environment !== null && !ENVIRONMENTS.includes(environment as Environment)) {
    return adminError('invalid_request', 'The query parameter environment must be production or sandbox.');
  }
  const list: ApiKeyList = {
    object: 'list',
    data: context.data.keys.list(account.id, (environment as Environment | null) ?? undefined),
    has_more: false,
  };
  return ok(200, list);
}

async function createKey(
  req: IncomingMessage,
  context: AdminContext,
  account: TenantAccount,
  facts: RequestFacts,
): Promise<AdminResponse> {
  const body = await readJsonBody(req, MAX_BODY_BYTES);
  if ('refusal' in body) return body.refusal;
  const request = body.parsed;
  if (!validateNewKey(request)) {
    const problems = requestProblems(validateNewKey.errors).join('; ');
    return adminError('invalid_request', `The request body is not a valid NewKeyRequest: ${problems}.`);
  }
  const created = context.data.keys.create(account.id, request);
  facts.keyId = created.key.id;
  // Acknowledged only once on disk: a 201 is never followed by a lost key.
  await context.data.keys.saved();
  return ok(201, created satisfies CreatedKey);
}

async function revokeKey(
  context: AdminContext,
  account: TenantAccount,
  keyId: string,
): Promise<AdminResponse> {
  const revoked = context.data.keys.revoke(account.id, keyId);
  if (!revoked) return adminError('key_not_found');
  await context.data.keys.saved();
  return ok(200, revoked);
}

async function rotateKey(
  context: AdminContext,
  account: TenantAccount,
  keyId: string,
): Promise<AdminResponse> {
  const rotated = context.data.keys.rotate(account.id, keyId);
  if (rotated === undefined) return adminError('key_not_found');
  if (rotated === 'revoked') return adminError('key_revoked');
  await context.data.keys.saved();
  const body: RotatedKey = { key: rotated.key, secret: rotated.secret, revoked_key: rotated.revokedKey };
  return ok(201, body);
}

/** What is wrong with a NewKeyRequest, by JSON path; never a value the client sent. */
function requestProblems(errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map((error) =>
    // The schema's `permissions: false` for any access but custom.
    error.keyword === 'false schema'
      ? `${jsonPath(error.instancePath)}: is only allowed when access is "custom"`
      : (describeSchemaErrors([error])[0] ?? jsonPath(error.instancePath)),
  );
}

function ok(status: number, body: unknown): AdminResponse {
  return { status, headers: {}, body };
}

function notAllowed(allow: string): AdminResponse {
  return adminError('method_not_allowed', undefined, { Allow: allow });
}
