// Prints one fixture key, so that a person can paste a curl command without the server ever
// printing a key. Fixture keys are public test values; this is still the only place they are shown.
//   npm run --silent fixture-key -- [--fixtures FILE] KEY_ID     print that key
//   npm run --silent fixture-key -- [--fixtures FILE]            list key ids (no secrets)
import { parseArgs } from 'node:util';
import { DEFAULT_FIXTURES_FILE, loadFixtures } from '../reference-server/fixtures.ts';

const { values, positionals } = parseArgs({
  options: { fixtures: { type: 'string' } },
  allowPositionals: true,
});
const fixtures = loadFixtures(values.fixtures ?? DEFAULT_FIXTURES_FILE);
const keys = fixtures.tenants.flatMap((tenant) => tenant.keys.map((key) => ({ tenant: tenant.id, ...key })));
const wanted = positionals[0];
if (wanted === undefined) {
  for (const key of keys)
    console.log(
      `${key.id.padEnd(30)} ${key.tenant.padEnd(10)} ${key.environment.padEnd(10)} ${key.revoked ? 'revoked' : key.access}`,
    );
} else {
  const key = keys.find((candidate) => candidate.id === wanted);
  if (!key) {
    console.error(`No key with id "${wanted}" in the fixtures. Run without an id to list them.`);
    process.exit(1);
  }
  console.log(key.secret);
}
