// Redaction of key values from everything the suite writes. A key can come back altered
// (truncated, extended, one character changed, in another case, quoted, URL-encoded), so any
// token sharing a run of WINDOW characters with a configured key is masked, not only the key.

const WINDOW = 12;
const TOKEN = /[A-Za-z0-9_\-.~+/=%]{12,}/g;
export const REDACTED = '[REDACTED]';

export class Redactor {
  readonly #windows = new Set<string>();

  constructor(secrets: Iterable<string>) {
    for (const secret of secrets) this.add(secret);
  }

  add(secret: string): void {
    // The Basic-scheme probe sends base64(key + ':'), and that is as good as the key.
    const forms = [
      secret,
      Buffer.from(secret).toString('base64'),
      Buffer.from(`${secret}:`).toString('base64'),
    ];
    for (const form of forms) {
      const lower = form.toLowerCase();
      for (let start = 0; start + WINDOW <= lower.length; start++)
        this.#windows.add(lower.slice(start, start + WINDOW));
    }
  }

  redact(text: string): string {
    if (this.#windows.size === 0) return text;
    return text.replace(TOKEN, (token) => (this.#sharesWindow(decodeLoosely(token)) ? REDACTED : token));
  }

  #sharesWindow(token: string): boolean {
    const lower = token.toLowerCase();
    for (let start = 0; start + WINDOW <= lower.length; start++) {
      if (this.#windows.has(lower.slice(start, start + WINDOW))) return true;
    }
    return false;
  }
}

function decodeLoosely(token: string): string {
  try {
    return decodeURIComponent(token);
  } catch {
    return token;
  }
}
