// ajv's errors as lines a person reads, whichever validator made them (validators.ts at run time,
// or the ones generated ahead of time for the server's start, start-up-validators.ts).
import type { ErrorObject } from 'ajv';

/**
 * ajv's errors as lines a person can act on: the JSON path of the value, then what is wrong
 * with it, e.g. `$.tenants[0].keys[2].secret: must match pattern "^mbk_(prod|dev)_…"`.
 */
export function describeSchemaErrors(errors: ErrorObject[] | null | undefined): string[] {
  // An `if`/`then` failure is always reported again, more precisely, by the keyword inside `then`.
  return (errors ?? [])
    .filter((error) => error.keyword !== 'if')
    .map((error) => {
      const path = jsonPath(error.instancePath);
      if (error.keyword === 'additionalProperties') {
        const extra = (error.params as { additionalProperty: string }).additionalProperty;
        return `${path}: unknown property "${extra}"`;
      }
      if (error.keyword === 'enum') {
        const allowed = (error.params as { allowedValues: unknown[] }).allowedValues;
        return `${path}: must be one of ${allowed.map((value) => JSON.stringify(value)).join(', ')}`;
      }
      // A pattern or format alone does not say what is meant; the schema's description does. The value
      // itself is never repeated: it may be a key pasted where a variable name belongs.
      const description = (error.parentSchema as { description?: string } | undefined)?.description;
      if ((error.keyword === 'pattern' || error.keyword === 'format') && description)
        return `${path}: ${error.message ?? 'is invalid'} (${description})`;
      return `${path}: ${error.message ?? 'is invalid'}`;
    });
}

/** `/tenants/0/keys/2` → `$.tenants[0].keys[2]` */
export function jsonPath(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : `${path}.${part}`), '$');
}
