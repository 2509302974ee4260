// The notices shown above the API Keys page after a change. A key's secret appears in exactly one
// place of the panel: `newKeyNotice`, right after the key was created or rotated.
import type { ApiKeyMetadata } from '../../schemas/generated/api-key-management.ts';
import { html, type SafeHtml } from './safe-html.ts';

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
