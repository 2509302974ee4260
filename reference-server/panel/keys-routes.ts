// Settings → API → API Keys: listing, creating, revoking and rotating keys for a signed-in user.
// The page exists only when the feature is enabled for the account and the user may manage keys;
// a new key is on disk before its secret is shown.
import type { NewKeyRequest } from '../../schemas/generated/api-key-management.ts';
import { validatorFor } from '../../schemas/validators.ts';
import type { RequestFacts } from '../http/request-facts.ts';
import { hostLines } from '../http/field-lines.ts';
import { apiHostname } from '../http/hosts.ts';
import { readForm } from './forms.ts';
import { newKeyNotice, revokedNotice } from './key-notices.ts';
import { keysPage, type KeysPageContent } from './keys-page.ts';
import { errorPage } from './page-layout.ts';
import { page, redirect, type PanelResponse } from './panel-response.ts';
import { PATHS } from './paths.ts';
import { methodNotAllowed } from './refusals.ts';
import { keysPageAccess } from './users.ts';
import { frameOf, type SignedInVisit } from './visit.ts';

export const KEY_ACTION = /^\/settings\/api\/keys\/(key_[a-z0-9_]{1,60})\/(revoke|rotate)$/;
const validateNewKey = validatorFor<NewKeyRequest>(
  'api-key-management.schema.json#/definitions/NewKeyRequest',
);

export async function keysRoute(
  visit: SignedInVisit,
  path: string,
  method: string,
  facts: RequestFacts,
): Promise<PanelResponse> {
  // The page's existence is decided first: for a disabled account or a member, every URL under
  // it answers the same 404 or 403, whatever the method or the form.
  const access = keysPageAccess(visit.account, visit.user);
  if (access === 'feature-disabled') {
    return page(404, errorPage(frameOf(visit), 'Not found', 'There is no page at this address.'));
  }
  if (access === 'not-permitted') {
    return page(
      403,
      errorPage(
        frameOf(visit),
        'Not allowed',
        'Managing API keys needs the admin role. Ask an admin of this account.',
      ),
    );
  }
  if (path === PATHS.api) {
    return method === 'GET' || method === 'HEAD'
      ? redirect(PATHS.keys)
      : methodNotAllowed(visit, 'GET, HEAD');
  }
  if (path === PATHS.keys) {
    if (method === 'GET' || method === 'HEAD') return listKeys(visit);
    if (method !== 'POST') return methodNotAllowed(visit, 'GET, HEAD, POST');
    const form = await readForm(visit);
    if ('status' in form) return form;
    return createKey(visit, form, facts);
  }
  if (method !== 'POST') return methodNotAllowed(visit, 'POST');
  const [, id = '', action] = KEY_ACTION.exec(path) ?? [];
  facts.keyId = id;
  const form = await readForm(visit);
  if ('status' in form) return form;
  return action === 'revoke' ? revokeKey(visit, id) : rotateKey(visit, id);
}

function listKeys(visit: SignedInVisit): PanelResponse {
  const revokedId = new URLSearchParams((visit.req.url ?? '').split('?')[1] ?? '').get('revoked');
  const revoked = revokedId
    ? visit.context.data.keys.get(visit.host.tenant, revokedId, visit.host.environment)
    : undefined;
  return keysResponse(visit, 200, { notice: revoked?.revoked ? revokedNotice(revoked) : undefined });
}

async function createKey(
  visit: SignedInVisit,
  form: URLSearchParams,
  facts: RequestFacts,
): Promise<PanelResponse> {
  const access = form.get('access') ?? '';
  const permissions = form.getAll('permissions');
  const request: unknown = {
    name: (form.get('name') ?? '').trim(),
    environment: visit.host.environment,
    access,
    ...(access === 'custom' ? { permissions } : {}),
  };
  if (!validateNewKey(request)) {
    return keysResponse(visit, 400, {
      formError: formErrorOf(validateNewKey.errors?.[0]?.instancePath ?? ''),
      formValues: { name: form.get('name') ?? '', access, permissions },
    });
  }
  const created = visit.context.data.keys.create(visit.host.tenant, request);
  facts.keyId = created.key.id;
  // The new key is on disk before its secret is shown.
  await visit.context.data.keys.saved();
  return keysResponse(visit, 201, { notice: newKeyNotice(created.key, created.secret) });
}

async function revokeKey(visit: SignedInVisit, id: string): Promise<PanelResponse> {
  const revoked = visit.context.data.keys.revoke(visit.host.tenant, id, visit.host.environment);
  if (!revoked) return keyNotFound(visit);
  await visit.context.data.keys.saved();
  return redirect(`${PATHS.keys}?revoked=${encodeURIComponent(revoked.id)}`);
}

async function rotateKey(visit: SignedInVisit, id: string): Promise<PanelResponse> {
  const rotated = visit.context.data.keys.rotate(visit.host.tenant, id, visit.host.environment);
  if (!rotated) return keyNotFound(visit);
  await visit.context.data.keys.saved();
  if (rotated === 'revoked') {
    return keysResponse(visit, 409, {
      formError: 'That key is revoked and cannot be rotated. Create a new key instead.',
    });
  }
  return keysResponse(visit, 201, { notice: newKeyNotice(rotated.key, rotated.secret, rotated.revokedKey) });
}

function keyNotFound(visit: SignedInVisit): PanelResponse {
  return keysResponse(visit, 404, {
    formError: 'No key with that id exists on this panel. It may belong to the other environment.',
  });
}

function keysResponse(
  visit: SignedInVisit,
  status: number,
  content: Omit<KeysPageContent, 'keys' | 'apiBaseUrl' | 'exposedKeyIds'>,
): PanelResponse {
  const { tenant, environment } = visit.host;
  const keys = visit.context.data.keys.list(tenant, environment);
  const { journal } = visit.context;
  const exposedKeyIds = new Set(
    keys.filter((key) => !key.revoked && journal?.exposedSince(key.id) !== undefined).map((key) => key.id),
  );
  const port = /:(\d+)$/.exec(hostLines(visit.req)[0] ?? '')?.[1];
  const apiBaseUrl = `https://${apiHostname(tenant, environment, visit.context.domain)}${port ? `:${port}` : ''}/v1`;
  return page(status, keysPage(frameOf(visit), { ...content, keys, apiBaseUrl, exposedKeyIds }));
}

/** What to fix in the creation form, from the first schema error's JSON pointer. */
function formErrorOf(pointer: string): string {
  if (pointer.startsWith('/name'))
    return 'Name: give 1 to 100 characters, not only spaces and no control characters.';
  if (pointer.startsWith('/access')) return 'Type: choose Read Only, Full Access or Chosen permissions.';
  return 'Chosen permissions: tick at least one permission, or choose Read Only or Full Access.';
}
