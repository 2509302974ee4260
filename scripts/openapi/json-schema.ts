// The JSON Schemas of schemas/ as OpenAPI 3.1 Schema Objects (JSON Schema 2020-12), so that the
// OpenAPI document describes a payload with the very file ajv validates it with and its type is
// generated from. The files are draft-07: each becomes one entry of `components.schemas` (named
// by its `title`), its `definitions` become entries of their own, and every `$ref` points there.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export type JsonSchema = boolean | { [keyword: string]: unknown };

export const SCHEMAS_DIR = join(import.meta.dirname, '..', '..', 'schemas');

const COMPONENT_REF = '#/components/schemas/';
const LOCAL_DEFINITION = /^#\/definitions\/([A-Za-z0-9_.-]+)$/;

/** Keywords whose value is a map of names to subschemas. */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', 'definitions', '$defs', 'dependentSchemas']);
/** Keywords whose value is one subschema. */
const SCHEMA_VALUES = new Set([
  'items',
  'additionalProperties',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedProperties',
  'unevaluatedItems',
]);
/** Keywords whose value is a list of subschemas. */
const SCHEMA_LISTS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
/** Draft-07 keywords that mean something else (or nothing) in 2020-12: none is translated yet. */
const UNTRANSLATED = new Set(['additionalItems', 'dependencies', '$recursiveRef']);
/** Keywords of the file, not of the schema: the OpenAPI document names the dialect for all. */
const FILE_ONLY = new Set(['$schema', '$id']);

/**
 * The `components.schemas` entries of the given files of schemas/, e.g.
 * `{ ErrorBody: {...}, CustomersResponse: {...}, Customer: {...} }`.
 */
export function componentSchemas(files: readonly string[]): Record<string, JsonSchema> {
  const components: Record<string, JsonSchema> = {};
  const add = (name: string, schema: JsonSchema, file: string): void => {
    if (name in components) throw new Error(`${file}: a schema named ${name} is already in the document.`);
    components[name] = schema;
  };
  for (const file of files) {
    const source = JSON.parse(readFileSync(join(SCHEMAS_DIR, file), 'utf8')) as Record<string, unknown>;
    const { definitions, ...root } = source;
    if (typeof root.title !== 'string') throw new Error(`${file}: a schema needs a title to be named by.`);
    add(root.title, convert(root, file), file);
    for (const [name, definition] of Object.entries((definitions ?? {}) as Record<string, JsonSchema>)) {
      add(name, convert(definition, file), file);
    }
  }
  return components;
}

/** One (sub)schema in 2020-12 terms, its `$ref`s pointing into `components.schemas`. */
function convert(schema: JsonSchema, file: string): JsonSchema {
  if (typeof schema === 'boolean') return schema;
  const converted: Record<string, unknown> = {};
  for (const [keyword, value] of Object.entries(schema)) {
    if (FILE_ONLY.has(keyword)) continue;
    if (UNTRANSLATED.has(keyword) || (keyword === 'items' && Array.isArray(value))) {
      throw new Error(
        `${file}: "${keyword}" does not mean the same in OpenAPI 3.1 (JSON Schema 2020-12); translate it in scripts/openapi/json-schema.ts.`,
      );
    }
    if (keyword === '$ref') converted.$ref = componentRef(value, file);
    else if (SCHEMA_MAPS.has(keyword)) converted[keyword] = mapValues(value, file);
    else if (SCHEMA_VALUES.has(keyword)) converted[keyword] = convert(value as JsonSchema, file);
    else if (SCHEMA_LISTS.has(keyword))
      converted[keyword] = (value as JsonSchema[]).map((item) => convert(item, file));
    else converted[keyword] = value;
  }
  return converted;
}

function mapValues(value: unknown, file: string): Record<string, JsonSchema> {
  return Object.fromEntries(
    Object.entries(value as Record<string, JsonSchema>).map(([name, schema]) => [
      name,
      convert(schema, file),
    ]),
  );
}

function componentRef(ref: unknown, file: string): string {
  const name = typeof ref === 'string' ? LOCAL_DEFINITION.exec(ref)?.[1] : undefined;
  if (name === undefined) {
    throw new Error(
      `${file}: $ref ${JSON.stringify(ref)} is not a local #/definitions/… reference, the only kind the OpenAPI generator resolves.`,
    );
  }
  return `${COMPONENT_REF}${name}`;
}
