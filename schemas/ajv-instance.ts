// The ajv instance every schema of schemas/ is validated with, in one place: one instance holds
// every schema, so that a `$ref` between files resolves. The run-time validators (validators.ts)
// and the ones generated ahead of time (scripts/start-up-validators-source.ts) are made by it alike.
import { readdirSync, readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { Ajv, type Options } from 'ajv';
import addFormatsPlugin from 'ajv-formats';
import { PACKAGE_ROOT } from '../kit/package-root.ts';

// ajv-formats is CommonJS with a default export; under NodeNext the callable sits on `.default`.
const addFormats = addFormatsPlugin as unknown as typeof addFormatsPlugin.default;

export const SCHEMAS_DIR = join(PACKAGE_ROOT, 'schemas');

/** @param extra options beyond the validation options every validator shares (code generation). */
export function schemasAjv(extra: Options = {}): Ajv {
  const ajv = new Ajv({ allErrors: true, strictTypes: true, allowUnionTypes: true, verbose: true, ...extra });
  addFormats(ajv);
  // An address as node:net takes it; ajv-formats' ipv4 and ipv6 apart would report two errors.
  ajv.addFormat('ip', (value: string) => isIP(value) !== 0);
  for (const file of readdirSync(SCHEMAS_DIR).filter((name) => name.endsWith('.schema.json'))) {
    ajv.addSchema(JSON.parse(readFileSync(join(SCHEMAS_DIR, file), 'utf8')) as object, file);
  }
  return ajv;
}
