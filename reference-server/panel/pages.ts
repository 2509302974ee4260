// The panel's sign-in and account pages as HTML. Every value from outside (names, e-mails, form
// input) goes through `html`, which escapes it.
import { html } from './safe-html.ts';
import { ENVIRONMENT_LABELS, layout, type PageFrame } from './page-layout.ts';
import { PATHS } from './paths.ts';

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
