// The validator of each schema of schemas/, compiled on first use, so that each payload is
// validated against the same file its TypeScript type is generated from.
import type { Ajv, ValidateFunction } from 'ajv';
import { schemasAjv, SCHEMAS_DIR } from './ajv-instance.ts';

export { describeSchemaErrors, jsonPath } from './schema-errors.ts';

// Each schema is checked against its meta-schema once, by tests/schemas/ajv-instance.test.ts, not
// again in every process that loads this module: in a run that is the command, the Playwright
// runner and every worker, each paying some 50 ms to compile the meta-schema and check the schemas
// with it. A valid schema compiles to the same validator either way.
// Made on the first validator asked for, not when this module loads: many processes import a
// module that validates and never validate (a command's --help, `keys`, a usage error).
let ajv: Ajv | undefined;

/** The compiled validator of `schemas/<file>`, e.g. `validatorFor('error.schema.json')`. */
export function validatorFor<T>(file: string): ValidateFunction<T> {
  ajv ??= schemasAjv({ validateSchema: false });
  const validate = ajv.getSchema<T>(file);
  if (!validate) throw new Error(`No schema named ${file} in ${SCHEMAS_DIR}.`);
  return validate;
}
