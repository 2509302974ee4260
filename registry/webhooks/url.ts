// What a webhook may be: an https URL without credentials, to a host the operator allows
// (`--webhook-hosts`, when given), and the events it may ask for. The registry itself fetches the
// URL (a server-side request a publisher chooses), so these are checked when the webhook is
// registered and again before every attempt.

export const WEBHOOK_EVENTS = [
  'run.published',
  'version.verdict_changed',
  'rule.regressed',
  'certified_version.lost',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

const MAX_URL_LENGTH = 2000;

/** The host of an allow-list entry or of a URL, compared without case and without a trailing dot. */
const hostKey = (host: string): string => host.toLowerCase().replace(/\.$/, '');

/**
 * An allow-list entry matches its host exactly, or with `*.` every host below it
 * (`*.hooks.example` allows `ci.hooks.example`, not `hooks.example` itself).
 */
export function hostAllowed(host: string, allowed: readonly string[] | undefined): boolean {
  if (allowed === undefined) return true;
  const key = hostKey(host);
  return allowed.some((entry) => {
    const pattern = hostKey(entry);
    return pattern.startsWith('*.') ? key.endsWith(pattern.slice(1)) : key === pattern;
  });
}

/** Why `value` is not a webhook URL this registry will fetch, or undefined when it is. */
export function webhookUrlProblem(value: unknown, allowedHosts?: readonly string[]): string | undefined {
  if (typeof value !== 'string' || value === '')
    return 'Give the URL to deliver to: {"url": "https://ci.example/hooks/registry"}.';
  if (value.length > MAX_URL_LENGTH)
    return `The URL is ${value.length} characters; keep it to ${MAX_URL_LENGTH}.`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'The URL does not parse: give an absolute https URL.';
  }
  if (url.protocol !== 'https:')
    return `The URL is ${url.protocol.replace(/:$/, '')}: a webhook is delivered over https only (its body is signed, not secret, and the endpoint must be the one you named).`;
  if (url.username !== '' || url.password !== '')
    return 'The URL holds credentials (user:password@): the registry would show and log them. Check the X-Registry-Signature-256 header instead.';
  if (url.hash !== '') return 'The URL holds a #fragment, which is never sent: remove it.';
  if (!hostAllowed(url.hostname.replace(/^\[|\]$/g, ''), allowedHosts))
    return `The host ${url.hostname} is not one this registry delivers to (its operator's --webhook-hosts: ${(allowedHosts ?? []).join(', ')}).`;
  return undefined;
}

/** Why `value` is not a list of events, or undefined when it is. */
export function eventsProblem(value: unknown): string | undefined {
  if (!Array.isArray(value) || value.length === 0)
    return `Give the events to deliver: {"events": ["run.published", …]}, of ${WEBHOOK_EVENTS.join(', ')}.`;
  const unknown = value.filter((event) => !(WEBHOOK_EVENTS as readonly unknown[]).includes(event));
  if (unknown.length > 0)
    return `Unknown event${unknown.length > 1 ? 's' : ''} ${unknown
      .slice(0, 5)
      .map((event) => JSON.stringify(String(event).slice(0, 40)))
      .join(', ')}: use ${WEBHOOK_EVENTS.join(', ')}.`;
  return undefined;
}
