// Every schema of schemas/ is a valid schema of its draft: the run-time validators (validators.ts)
// skip that check in each process, so it is made here, once, by the same ajv instance and options.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { schemasAjv, SCHEMAS_DIR } from '../../schemas/ajv-instance.ts';

const SCHEMA_FILES = readdirSync(SCHEMAS_DIR).filter((name) => name.endsWith('.schema.json'));

test('each schema of schemas/ is valid against its meta-schema', () => {
  assert.ok(SCHEMA_FILES.length >= 10, `the schemas were found: ${SCHEMA_FILES.join(', ')}`);
  // Made with the meta-schema check on (ajv's default): an invalid schema throws here.
  const ajv = schemasAjv();
  for (const file of SCHEMA_FILES) {
    const schema = JSON.parse(readFileSync(join(SCHEMAS_DIR, file), 'utf8')) as object;
    assert.equal(ajv.validateSchema(schema), true, `${file}: ${ajv.errorsText(ajv.errors)}`);
  }
});

test('the meta-schema check finds a schema that is not valid (so a pass means something)', () => {
  const ajv = schemasAjv();
  assert.equal(ajv.validateSchema({ type: 'not a type', properties: [] }), false);
  assert.throws(() => ajv.addSchema({ type: 'not a type' }, 'broken.schema.json'), /schema is invalid/);
});
