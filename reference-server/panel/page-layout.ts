// The frame every panel page shares (header, settings navigation, sign-out form) and the error
// page. Every value from outside goes through `html`, which escapes it.
import type { Environment } from '../http/hosts.ts';
import type { TenantAccount } from '../store/tenant-data.ts';
import { html, type SafeHtml } from './safe-html.ts';
import { PATHS } from './paths.ts';
import type { PanelUser } from './users.ts';

export interface PageFrame {
  account: TenantAccount;
  environment: Environment;
  /** The signed-in user, absent on the sign-in page. */
  user?: PanelUser;
  csrfToken: string;
  /** Whether the API Keys entry exists for this user (it is absent, not disabled, otherwise). */
  showKeys: boolean;
}

export const ENVIRONMENT_LABELS = { production: 'Production', sandbox: 'Sandbox' } as const;

export function layout(frame: PageFrame, title: string, current: string, body: SafeHtml): string {
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
