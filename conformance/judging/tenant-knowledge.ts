// Leak detection without assuming a response shape: learn each tenant's values from its own
// authorised response, then look for any of them in every other response. Only distinctive
// values count (ids, names, e-mails), and values both tenants share are dropped, so that a
// common word or a shared default is never reported as a leak — but not those of a whole record
// both tenants are served, which is a leak itself (valuesOfCommonRecords).

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

/** A record must hold this many distinctive values to count as a tenant's own record. */
const MIN_RECORD_VALUES = 3;

/**
 * The distinctive values of every record (an object in an array) that occurs, identical, in both
 * documents. Two tenants may share a value (a default, a date) but never a whole record: one
 * served to both tenants is a leak, so its values must not be dropped as "shared".
 */
export function valuesOfCommonRecords(a: unknown, b: unknown): Set<string> {
  const inB = new Set(recordsOf(b).keys());
  const values = new Set<string>();
  for (const [canonical, record] of recordsOf(a)) {
    if (inB.has(canonical)) distinctiveValues(record).forEach((value) => values.add(value));
  }
  return values;
}

/** The records of a document with enough distinctive values, by a canonical JSON text. */
function recordsOf(json: unknown): Map<string, unknown> {
  const records = new Map<string, unknown>();
  const visit = (value: unknown, inArray: boolean): void => {
    if (Array.isArray(value)) {
      value.forEach((item) => visit(item, true));
    } else if (value !== null && typeof value === 'object') {
      if (inArray && distinctiveValues(value).size >= MIN_RECORD_VALUES) records.set(canonical(value), value);
      Object.values(value).forEach((member) => visit(member, false));
    }
  };
  visit(json, false);
  return records;
}

/** JSON with object members in sorted order, so that member order does not tell records apart. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, member: unknown) =>
    member !== null && typeof member === 'object' && !Array.isArray(member)
      ? Object.fromEntries(Object.entries(member).sort(([a], [b]) => a.localeCompare(b)))
      : member,
  );
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
