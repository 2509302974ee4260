// The validator of each schema of schemas/, compiled on first use, so that each payload is
// validated against the same file its TypeScript type is generated from.
import type { ValidateFunction } from 'ajv';
import { schemasAjv, SCHEMAS_DIR } from './ajv-instance.ts';

export { describeSchemaErrors, jsonPath } from './schema-errors.ts';

const ajv = schemasAjv();

/** The compiled validator of `schemas/<file>`, e.g. `validatorFor('error.schema.json')`. */
export function validatorFor<T>(file: string): ValidateFunction<T> {
  const validate = ajv.getSchema<T>(file);
  if (!validate) throw new Error(`No schema named ${file} in ${SCHEMAS_DIR}.`);
  return validate;
}
