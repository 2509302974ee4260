// Settings → API → API Keys as HTML: the creation form and the table of keys (never a secret:
// a key is shown by its prefix and last characters). Values from outside go through `html`.
import type { ApiKeyMetadata } from '../../schemas/generated/api-key-management.ts';
import { ALL_PERMISSIONS } from '../store/key-permissions.ts';
import { html, type SafeHtml } from './safe-html.ts';
import { ENVIRONMENT_LABELS, layout, type PageFrame } from './page-layout.ts';
import { keyActionPath, PATHS } from './paths.ts';

const ACCESS_LABELS = {
  read_only: 'Read Only',
  full_access: 'Full Access',
  custom: 'Chosen permissions',
} as const;
const KEY_TYPE_LABELS = { production: 'Production', sandbox: 'Development' } as const;

export interface KeysPageContent {
  keys: readonly ApiKeyMetadata[];
  /** The API base URL the keys of this panel are for. */
  apiBaseUrl: string;
  /** Active keys that were sent over plain HTTP: exposed, to be rotated. */
  exposedKeyIds?: ReadonlySet<string>;
  /** Shown above the form: the new key, or what was done. */
  notice?: SafeHtml;
  formError?: string;
  formValues?: { name?: string; access?: string; permissions?: readonly string[] };
  status?: number;
}

export function keysPage(frame: PageFrame, content: KeysPageContent): string {
  const keyType = KEY_TYPE_LABELS[frame.environment];
  return layout(
    frame,
    'API Keys',
    PATHS.keys,
    html`<p class="breadcrumb">Settings → API → API Keys</p>
      <h1>API Keys</h1>
      ${content.notice ?? ''}
      <div class="card">
        <h2>Create a ${keyType.toLowerCase()} key</h2>
        <p class="hint">
          Keys made on this ${ENVIRONMENT_LABELS[frame.environment].toLowerCase()} panel are ${keyType} keys
          for
          <code>${content.apiBaseUrl}</code>. Use a separate key for each integration, with the least access
          it needs.
        </p>
        ${content.formError ? html`<p class="error" role="alert">${content.formError}</p>` : ''}
        ${createForm(frame, content.formValues ?? {})}
      </div>
      <div class="card">
        <h2>${keyType} keys</h2>
        ${keysTable(frame, content.keys, content.exposedKeyIds ?? new Set())}
      </div>`,
  );
}

function createForm(frame: PageFrame, values: NonNullable<KeysPageContent['formValues']>): SafeHtml {
  const access = values.access ?? 'read_only';
  const chosen = new Set(values.permissions ?? []);
  const accessChoice = (value: keyof typeof ACCESS_LABELS, hint: string): SafeHtml =>
    html`<label class="choice"
      ><input type="radio" name="access" value="${value}" ${access === value ? html`checked` : ''} />
      ${ACCESS_LABELS[value]} <small>${hint}</small></label
    >`;
  return html`<form method="post" action="${PATHS.keys}">
    <input type="hidden" name="csrf_token" value="${frame.csrfToken}" />
    <p>
      <label for="key-name">Name</label>
      <input id="key-name" name="name" type="text" maxlength="100" required value="${values.name ?? ''}" />
    </p>
    <fieldset>
      <legend>Type</legend>
      ${accessChoice('read_only', 'every :read permission')}
      ${accessChoice('full_access', 'every permission')}
      ${accessChoice('custom', 'exactly the permissions ticked below')}
      <div class="permissions">
        ${ALL_PERMISSIONS.map(
          (permission) =>
            html`<label class="choice"
              ><input
                type="checkbox"
                name="permissions"
                value="${permission}"
                ${chosen.has(permission) ? html`checked` : ''}
              />
              <code>${permission}</code></label
            >`,
        )}
      </div>
    </fieldset>
    <button type="submit">Create key</button>
  </form>`;
}

function keysTable(
  frame: PageFrame,
  keys: readonly ApiKeyMetadata[],
  exposed: ReadonlySet<string>,
): SafeHtml {
  if (keys.length === 0) return html`<p class="hint">No keys yet.</p>`;
  const rows = keys.map(
    (key) =>
      html`<tr class="${key.revoked ? 'revoked' : ''}" data-key-id="${key.id}">
        <td>${key.name}</td>
        <td><code>${key.prefix}…${key.last4}</code></td>
        <td>
          ${ACCESS_LABELS[key.access]}${key.access === 'custom' ? html`<br /><small>${key.permissions.join(', ')}</small>` : ''}
        </td>
        <td>${timeOf(key.created_at)}</td>
        <td>${key.last_used_at ? timeOf(key.last_used_at) : 'Never'}</td>
        <td>
          ${
            key.revoked
              ? html`<span class="status revoked">Revoked</span>`
              : exposed.has(key.id)
                ? html`<span class="status exposed">Exposed</span><br /><small
                      >Sent over plain HTTP: rotate it.</small
                    >`
                : html`<span class="status">Active</span>`
          }
        </td>
        <td>${key.revoked ? '' : keyActions(frame, key)}</td>
      </tr>`,
  );
  return html`<table>
    <thead>
      <tr>
        <th>Name</th>
        <th>Key</th>
        <th>Type</th>
        <th>Created</th>
        <th>Last used</th>
        <th>Status</th>
        <th><span class="hint">Actions</span></th>
      </tr>
    </thead>
    <tbody>
      ${rows}
    </tbody>
  </table>`;
}

function keyActions(frame: PageFrame, key: ApiKeyMetadata): SafeHtml {
  const csrf = html`<input type="hidden" name="csrf_token" value="${frame.csrfToken}" />`;
  return html`<div class="actions">
    ${keyActionForm(key, 'rotate', 'A new key replaces it and this one stops working at once.', csrf)}
    ${keyActionForm(key, 'revoke', 'It stops working at once.', csrf)}
  </div>`;
}

/** The form of one action on a key: a button, and the question the panel's script asks first. */
function keyActionForm(
  key: ApiKeyMetadata,
  action: 'rotate' | 'revoke',
  consequence: string,
  csrf: SafeHtml,
): SafeHtml {
  const [label, style] = action === 'rotate' ? ['Rotate', 'secondary'] : ['Revoke', 'danger'];
  return html`<form
    method="post"
    action="${keyActionPath(key.id, action)}"
    data-confirm="${label} “${key.name}”? ${consequence}"
  >
    ${csrf}<button class="${style}" type="submit">${label}</button>
  </form>`;
}

function timeOf(iso: string): SafeHtml {
  // Minutes in UTC: the same on every machine, so screenshots and tests read alike.
  return html`<time datetime="${iso}"
    ><span>${iso.slice(0, 10)}</span> <span>${iso.slice(11, 16)} UTC</span></time
  >`;
}
