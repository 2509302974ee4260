// Generates docs/openapi.json, the OpenAPI 3.1 document of the reference server's tenant API,
// from the JSON Schemas in schemas/ and the server's error catalog (scripts/openapi/document.ts),
// so that the document says what the server answers and never drifts from it unnoticed.
//   tsx scripts/generate-openapi.ts          write docs/openapi.json
//   tsx scripts/generate-openapi.ts --check  exit 1 if docs/openapi.json differs from its sources
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { format, resolveConfig } from 'prettier';
import { buildOpenApiDocument } from './openapi/document.ts';

const openApiFile = join(import.meta.dirname, '..', 'docs', 'openapi.json');
const checkOnly = process.argv.includes('--check');

// Formatted as `npm run format` would, so that the format check agrees with the generator.
const prettierOptions = (await resolveConfig(openApiFile)) ?? {};
const expected = await format(JSON.stringify(buildOpenApiDocument()), { ...prettierOptions, parser: 'json' });

if (checkOnly) {
  if (!existsSync(openApiFile) || readFileSync(openApiFile, 'utf8') !== expected) {
    console.error(
      `${openApiFile} is out of date with schemas/ and reference-server/http/errors.ts.\nRun \`npm run openapi\` and commit the result.`,
    );
    process.exit(1);
  }
  console.log('docs/openapi.json matches schemas/ and the error catalog');
} else {
  writeFileSync(openApiFile, expected);
  console.log(`wrote ${openApiFile}`);
}
