// Leak detection without assuming a response shape: learn each tenant's values from its own
// authorised response, then look for any of them in every other response. Only distinctive
// values count (ids, names, e-mails), and values both tenants share are dropped, so that a
// common word or a shared default is never reported as a leak.

export interface TenantValues {
  label: string;
  values: ReadonlySet<string>;
}

const MIN_LENGTH = 6;
/** Plain lower-case words ("customer", "active") say nothing about whose data it is. */
const GENERIC = /^[a-z_]+$/;

/** Every distinctive leaf value of a JSON document. */
export function distinctiveValues(json: unknown): Set<string> {
  const found = new Set<string>();
  const visit = (value: unknown): void => {
    if (typeof value === 'string') {
      if (value.length >= MIN_LENGTH && !GENERIC.test(value)) found.add(value);
    } else if (typeof value === 'number' && Math.abs(value) >= 100_000) {
      found.add(String(value));
    } else if (Array.isArray(value)) {
      value.forEach(visit);
    } else if (value !== null && typeof value === 'object') {
      Object.values(value).forEach(visit);
    }
  };
  visit(json);
  return found;
}

/** The values of `own` that `other` does not also have. */
export function withoutShared(own: ReadonlySet<string>, other: ReadonlySet<string>): Set<string> {
  return new Set([...own].filter((value) => !other.has(value)));
}

/** The values of `tenant` that occur in `text` (a response body), at most a few for the report. */
export function leakedValues(text: string, tenant: TenantValues, limit = 3): string[] {
  const leaked: string[] = [];
  for (const value of tenant.values) {
    if (text.includes(value) || text.includes(JSON.stringify(value).slice(1, -1))) leaked.push(value);
    if (leaked.length >= limit) break;
  }
  return leaked;
}
