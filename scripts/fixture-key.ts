// Prints fixture keys, so that a person can paste a curl command, or export the variables a
// target file names, without the server ever printing a key. Fixture keys are public test
// values; this script is still the only place they are shown.
//   npm run --silent fixture-key -- [--fixtures FILE] KEY_ID   print that key
//   npm run --silent fixture-key -- [--fixtures FILE] --export print `export REFERENCE_KEY_…=…` lines
//   npm run --silent fixture-key -- [--fixtures FILE]          list key ids (no secrets)
import { parseArgs } from 'node:util';
import { DEFAULT_FIXTURES_FILE, loadFixtures } from '../reference-server/fixtures.ts';
import { fixtureKeyEnvironment } from '../conformance/target.ts';

const USAGE = `Usage: npm run --silent fixture-key -- [--fixtures FILE] [KEY_ID | --export]

  KEY_ID     print that key (a public test value of the fixtures)
  --export   print export REFERENCE_KEY_…=… lines, the variables fixtures/reference-target.json names
  (none)     list the key ids, tenants, environments and access (no secrets)

Exit codes: 0 printed; 1 no such key id; 2 a bad option.`;

function parseOptions(): ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>> {
  try {
    return parseArgs({ options: OPTIONS, allowPositionals: true });
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    process.exit(2);
  }
}

const OPTIONS = {
  fixtures: { type: 'string' },
  export: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;
const { values, positionals } = parseOptions();
if (values.help === true) {
  console.log(USAGE);
  process.exit(0);
}
const fixturesFile = values.fixtures ?? DEFAULT_FIXTURES_FILE;
const fixtures = loadFixtures(fixturesFile);
const keys = fixtures.tenants.flatMap((tenant) => tenant.keys.map((key) => ({ tenant: tenant.id, ...key })));
const wanted = positionals[0];
if (values.export === true) {
  for (const [name, value] of Object.entries(fixtureKeyEnvironment(fixturesFile)))
    console.log(`export ${name}=${value}`);
} else if (wanted === undefined) {
  for (const key of keys) {
    const state = key.revoked ? 'revoked' : key.access;
    console.log(`${key.id.padEnd(30)} ${key.tenant.padEnd(10)} ${key.environment.padEnd(10)} ${state}`);
  }
} else {
  const key = keys.find((candidate) => candidate.id === wanted);
  if (!key) {
    console.error(`No key with id "${wanted}" in the fixtures. Run without an id to list them.`);
    process.exit(1);
  }
  console.log(key.secret);
}
