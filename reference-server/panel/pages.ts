// The panel's pages as HTML. Every value from outside (names, e-mails, form input) goes through
// `html`, which escapes it. A key's secret appears in exactly one place: `newKeyNotice`.
import type { ApiKeyMetadata } from '../../schemas/generated/api-key-management.ts';
import { ALL_PERMISSIONS } from '../store/key-permissions.ts';
import type { Environment } from '../http/hosts.ts';
import type { TenantAccount } from '../store/tenant-data.ts';
import { html, type SafeHtml } from './html.ts';
import type { PanelUser } from './users.ts';

export const PATHS = {
  home: '/',
  signIn: '/sign-in',
  signOut: '/sign-out',
  settings: '/settings',
  api: '/settings/api',
  keys: '/settings/api/keys',
  css: '/assets/panel.css',
  js: '/assets/panel.js',
} as const;

export function keyActionPath(id: string, action: 'revoke' | 'rotate'): string {
  return `${PATHS.keys}/${encodeURIComponent(id)}/${action}`;
}

export interface PageFrame {
  account: TenantAccount;
  environment: Environment;
  /** The signed-in user, absent on the sign-in page. */
  user?: PanelUser;
  csrfToken: string;
  /** Whether the API Keys entry exists for this user (it is absent, not disabled, otherwise). */
  showKeys: boolean;
}

const ACCESS_LABELS = {
  read_only: 'Read Only',
  full_access: 'Full Access',
  custom: 'Chosen permissions',
} as const;

const ENVIRONMENT_LABELS = { production: 'Production', sandbox: 'Sandbox' } as const;
const KEY_TYPE_LABELS = { production: 'Production', sandbox: 'Development' } as const;

function layout(frame: PageFrame, title: string, current: string, body: SafeHtml): string {
  const { account, environment, user } = frame;
  const nav = user
    ? html`<nav class="side" aria-label="Settings">
        <h2>Settings</h2>
        <a href="${PATHS.settings}" ${current === PATHS.settings ? html`aria-current="page"` : ''}>Account</a>
        ${
          frame.showKeys
            ? html`<a href="${PATHS.api}">API</a>
                <a class="sub" href="${PATHS.keys}" ${current === PATHS.keys ? html`aria-current="page"` : ''}
                  >API Keys</a
                >`
            : ''
        }
      </nav>`
    : '';
  const who = user
    ? html`<div class="who">
        <span>${user.name}</span>
        <form method="post" action="${PATHS.signOut}">
          <input type="hidden" name="csrf_token" value="${frame.csrfToken}" />
          <button class="link" type="submit">Sign out</button>
        </form>
      </div>`
    : '';
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} · ${account.name}</title>
        <link rel="stylesheet" href="${PATHS.css}" />
      </head>
      <body>
        <header class="top">
          <span class="brand">${account.name}</span>
          <span class="env ${environment}">${ENVIRONMENT_LABELS[environment]}</span>
          ${who}
        </header>
        <div class="layout">
          ${nav}
          <main>${body}</main>
        </div>
        <script src="${PATHS.js}"></script>
      </body>
    </html>`.value;
}

export function signInPage(frame: PageFrame, options: { error?: string; email?: string } = {}): string {
  return layout(
    frame,
    'Sign in',
    PATHS.signIn,
    html`<div class="card signin">
      <h1>Sign in</h1>
      <p class="hint">${frame.account.name} · ${ENVIRONMENT_LABELS[frame.environment]} panel</p>
      ${options.error ? html`<p class="error" role="alert">${options.error}</p>` : ''}
      <form method="post" action="${PATHS.signIn}">
        <input type="hidden" name="csrf_token" value="${frame.csrfToken}" />
        <p>
          <label for="email">E-mail</label>
          <input
            id="email"
            name="email"
            type="email"
            autocomplete="username"
            required
            value="${options.email ?? ''}"
          />
        </p>
        <p>
          <label for="password">Password</label>
          <input id="password" name="password" type="password" autocomplete="current-password" required />
        </p>
        <button type="submit">Sign in</button>
      </form>
    </div>`,
  );
}

export function settingsPage(frame: PageFrame): string {
  const user = frame.user;
  return layout(
    frame,
    'Settings',
    PATHS.settings,
    html`<p class="breadcrumb">Settings</p>
      <h1>Account</h1>
      <div class="card">
        <dl class="profile">
          <dt>Account</dt>
          <dd>${frame.account.name} (${frame.account.id})</dd>
          <dt>Signed in as</dt>
          <dd>${user?.name} &lt;${user?.email}&gt;</dd>
          <dt>Role</dt>
          <dd>${user?.role}</dd>
        </dl>
      </div>`,
  );
}

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
    <form
      method="post"
      action="${keyActionPath(key.id, 'rotate')}"
      data-confirm="Rotate “${key.name}”? A new key replaces it and this one stops working at once."
    >
      ${csrf}<button class="secondary" type="submit">Rotate</button>
    </form>
    <form
      method="post"
      action="${keyActionPath(key.id, 'revoke')}"
      data-confirm="Revoke “${key.name}”? It stops working at once."
    >
      ${csrf}<button class="danger" type="submit">Revoke</button>
    </form>
  </div>`;
}

/** The one place a key's secret is written: right after it was created, never again. */
export function newKeyNotice(key: ApiKeyMetadata, secret: string, replaced?: ApiKeyMetadata): SafeHtml {
  return html`<div class="notice" role="status">
    <h2>${replaced ? 'Key rotated' : 'Key created'}: ${key.name}</h2>
    <p>
      Copy this key now. It is shown only once: the server keeps only a hash of it and cannot show it again.
      ${replaced ? html`The old key <code>${replaced.prefix}…${replaced.last4}</code> is revoked.` : ''}
    </p>
    <div class="secret">
      <input id="new-key-secret" type="text" readonly value="${secret}" aria-label="New API key" />
      <button type="button" data-copy-target="new-key-secret">Copy</button>
    </div>
    <p class="hint">Keep it out of frontend code, repositories, shared files, screenshots and logs.</p>
  </div>`;
}

export function revokedNotice(key: ApiKeyMetadata): SafeHtml {
  return html`<div class="notice warn" role="status">
    <p>
      Key “${key.name}” (<code>${key.prefix}…${key.last4}</code>) is revoked. The API rejects it from now on.
    </p>
  </div>`;
}

/** A whole page for an error (404, 403, CSRF failure), with a way back. */
export function errorPage(frame: PageFrame | undefined, title: string, message: string): string {
  const body = html`<div class="card">
    <h1>${title}</h1>
    <p>${message}</p>
    <p><a href="${PATHS.home}">Back to the panel</a></p>
  </div>`;
  if (frame) return layout(frame, title, '', body);
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <title>${title}</title>
        <link rel="stylesheet" href="${PATHS.css}" />
      </head>
      <body>
        <div class="layout"><main>${body}</main></div>
      </body>
    </html>`.value;
}

function timeOf(iso: string): SafeHtml {
  // Minutes in UTC: the same on every machine, so screenshots and tests read alike.
  return html`<time datetime="${iso}"
    ><span>${iso.slice(0, 10)}</span> <span>${iso.slice(11, 16)} UTC</span></time
  >`;
}
