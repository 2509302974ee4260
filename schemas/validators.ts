// One ajv instance holding every schema of schemas/, so that a `$ref` between files resolves and
// each payload is validated against the same file its TypeScript type is generated from.
import { readdirSync, readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsPlugin from 'ajv-formats';
import { PACKAGE_ROOT } from '../reference-server/package-root.ts';

// ajv-formats is CommonJS with a default export; under NodeNext the callable sits on `.default`.
const addFormats = addFormatsPlugin as unknown as typeof addFormatsPlugin.default;

const schemasDir = join(PACKAGE_ROOT, 'schemas');
const ajv = new Ajv({ allErrors: true, strictTypes: true, allowUnionTypes: true, verbose: true });
addFormats(ajv);
// An address as node:net takes it; ajv-formats' ipv4 and ipv6 apart would report two errors.
ajv.addFormat('ip', (value: string) => isIP(value) !== 0);
for (const file of readdirSync(schemasDir).filter((name) => name.endsWith('.schema.json'))) {
  ajv.addSchema(JSON.parse(readFileSync(join(schemasDir, file), 'utf8')) as object, file);
}

/** The compiled validator of `schemas/<file>`, e.g. `validatorFor('error.schema.json')`. */
export function validatorFor<T>(file: string): ValidateFunction<T> {
  const validate = ajv.getSchema<T>(file);
  if (!validate) throw new Error(`No schema named ${file} in ${schemasDir}.`);
  return validate;
}

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
