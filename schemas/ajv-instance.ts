// The ajv instance every schema of schemas/ is validated with, in one place: one instance holds
// every schema, so that a `$ref` between files resolves. The run-time validators (validators.ts)
// and the ones generated ahead of time (scripts/start-up-validators-source.ts) are made by it alike.
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isIP } from 'node:net';
import { join } from 'node:path';
import type { Ajv, Options } from 'ajv';
import type addFormatsPlugin from 'ajv-formats';
import { PACKAGE_ROOT } from '../kit/package-root.ts';

/**
 * ajv and ajv-formats, loaded when an instance is first made (CommonJS, so synchronously): a
 * process that imports a module which validates, but validates nothing (a command's --help, `keys`,
 * a bad option), does not load their 70 modules, about 0.1 s of CPU per process.
 */
function ajvModules(): { Ajv: typeof Ajv; addFormats: typeof addFormatsPlugin.default } {
  const require = createRequire(import.meta.url);
  const { Ajv: AjvClass } = require('ajv') as typeof import('ajv');
  // ajv-formats is CommonJS whose module.exports is the plugin itself.
  const addFormats = require('ajv-formats') as typeof addFormatsPlugin.default;
  return { Ajv: AjvClass, addFormats };
}

export const SCHEMAS_DIR = join(PACKAGE_ROOT, 'schemas');

/** @param extra options beyond the validation options every validator shares (code generation). */
export function schemasAjv(extra: Options = {}): Ajv {
  const { Ajv: AjvClass, addFormats } = ajvModules();
  const ajv = new AjvClass({
    allErrors: true,
    strictTypes: true,
    allowUnionTypes: true,
    verbose: true,
    ...extra,
  });
  addFormats(ajv);
  // An address as node:net takes it; ajv-formats' ipv4 and ipv6 apart would report two errors.
  ajv.addFormat('ip', (value: string) => isIP(value) !== 0);
  for (const file of readdirSync(SCHEMAS_DIR).filter((name) => name.endsWith('.schema.json'))) {
    ajv.addSchema(JSON.parse(readFileSync(join(SCHEMAS_DIR, file), 'utf8')) as object, file);
  }
  return ajv;
}
