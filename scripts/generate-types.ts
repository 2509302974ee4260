// Generates TypeScript types from the JSON Schemas in schemas/, so that one schema is the single
// source for validation (ajv) and for the types the code is written against; and the validators
// the server runs at start-up, ahead of time (start-up-validators-source.ts).
//   tsx scripts/generate-types.ts          write schemas/generated/*.ts
//   tsx scripts/generate-types.ts --check  exit 1 if a generated file differs from its schema
import { readdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { compileFromFile } from 'json-schema-to-typescript';
import { format, resolveConfig } from 'prettier';
import { startUpValidatorsSource } from './start-up-validators-source.ts';

const schemasDir = join(import.meta.dirname, '..', 'schemas');
const generatedDir = join(schemasDir, 'generated');
const checkOnly = process.argv.includes('--check');

const banner =
  '/* Generated from schemas/%s by scripts/generate-types.ts. Do not edit: change the schema and run `npm run generate`. */';

async function generate(schemaFile: string): Promise<string> {
  const source = await compileFromFile(join(schemasDir, schemaFile), {
    cwd: schemasDir,
    bannerComment: banner.replace('%s', schemaFile),
    additionalProperties: false,
    style: { singleQuote: true },
  });
  const prettierOptions = (await resolveConfig(join(generatedDir, 'x.ts'))) ?? {};
  return format(source, { ...prettierOptions, parser: 'typescript' });
}

const schemaFiles = readdirSync(schemasDir).filter((name) => name.endsWith('.schema.json'));
const drifted: string[] = [];
const outputs: [string, () => Promise<string> | string][] = [
  ...schemaFiles.map((schemaFile): [string, () => Promise<string>] => [
    join(generatedDir, schemaFile.replace('.schema.json', '.ts')),
    () => generate(schemaFile),
  ]),
  [join(generatedDir, 'start-up-validators.ts'), startUpValidatorsSource],
];
for (const [target, make] of outputs) {
  const expected = await make();
  if (checkOnly) {
    if (!existsSync(target) || readFileSync(target, 'utf8') !== expected) drifted.push(target);
  } else {
    writeFileSync(target, expected);
    console.log(`wrote ${target}`);
  }
}
if (drifted.length > 0) {
  console.error(
    `Generated types are out of date with their schemas:\n  ${drifted.join('\n  ')}\nRun \`npm run generate\` and commit the result.`,
  );
  process.exit(1);
}
if (checkOnly) console.log(`generated types match ${schemaFiles.length} schemas`);
