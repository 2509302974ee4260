// The source of schemas/generated/start-up-validators.ts: ajv's standalone code for the schemas the
// server validates before it can answer (fixtures, key store file), made by the same ajv instance
// and options as the run-time validators. The server then starts without loading ajv's compiler
// and compiling the schemas, which took about a third of its start-up and some 9 MiB of memory.
import standaloneCode from 'ajv/dist/standalone/index.js';
import { schemasAjv } from '../schemas/ajv-instance.ts';

/** Export name → schema file, as `schemas/start-up-validators.ts` reads them. */
export const START_UP_SCHEMAS = {
  fixtures: 'fixtures.schema.json',
  keyStore: 'key-store.schema.json',
} as const;

const BANNER = [
  '/* Generated from schemas/fixtures.schema.json and schemas/key-store.schema.json by',
  '   scripts/generate-types.ts (ajv standalone code). Do not edit: change the schema and run `npm run generate`. */',
  '// @ts-nocheck',
  // ajv's standalone code loads its few run-time helpers (deep equality, string length, the
  // date-time format) with `require`, even as an ES module.
  "import { createRequire } from 'node:module';",
  'const require = createRequire(import.meta.url);',
].join('\n');

export function startUpValidatorsSource(): string {
  const ajv = schemasAjv({ code: { source: true, esm: true } });
  const code = standaloneCode.default(ajv, { ...START_UP_SCHEMAS }).replace(/^"use strict";/, '');
  return `${BANNER}\n${code}\n`;
}
