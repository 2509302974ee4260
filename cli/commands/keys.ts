// `tenant-auth-conformance keys` (in a clone: `npm run --silent fixture-key --`): prints fixture
// keys, so that a person can paste a curl command, or export the variables a target file names,
// without the server ever printing a key. Fixture keys are public test values; this command is
// still the only place they are shown.
import { DEFAULT_FIXTURES_FILE, FixturesError, loadFixtures } from '../../reference-server/store/fixtures.ts';
import { fixtureKeyEnvironment } from '../../conformance/deployment/embedded-target.ts';
import { commandArguments } from '../arguments.ts';
import { EXIT } from '../exit-codes.ts';

const HELP = `Usage: tenant-auth-conformance keys [--fixtures FILE] [KEY_ID | --export]
       (in a clone of the repository: npm run --silent fixture-key -- …)

Without an argument, lists the key ids of the reference fixtures (no secrets): id, tenant,
environment, access or revoked. With KEY_ID, prints that key alone. With --export, prints
\`export REFERENCE_KEY_…=…\` lines for every key (eval them for fixtures/reference-target.json).

Options:
  --fixtures FILE   another fixtures file (default: the package's fixtures/reference.json)
  --export          print export lines
  --help            print this help

Exit codes: 0 done, 2 unknown option or key id, 3 unreadable fixtures file.`;

export function main(argv: string[]): number {
  const parsed = commandArguments(
    argv,
    { fixtures: { type: 'string' }, export: { type: 'boolean' }, help: { type: 'boolean' } },
    HELP,
  );
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  try {
    return printKeys(values.fixtures ?? DEFAULT_FIXTURES_FILE, values.export === true, positionals[0]);
  } catch (error) {
    if (!(error instanceof FixturesError)) throw error;
    console.error(error.message);
    return EXIT.setup;
  }
}

function printKeys(fixturesFile: string, exportLines: boolean, wanted: string | undefined): number {
  const fixtures = loadFixtures(fixturesFile);
  const keys = fixtures.tenants.flatMap((tenant) =>
    tenant.keys.map((key) => ({ tenant: tenant.id, ...key })),
  );
  if (exportLines) {
    for (const [name, value] of Object.entries(fixtureKeyEnvironment(fixturesFile)))
      console.log(`export ${name}=${value}`);
    return EXIT.ok;
  }
  if (wanted === undefined) {
    for (const key of keys) {
      const state = key.revoked ? 'revoked' : key.access;
      console.log(`${key.id.padEnd(30)} ${key.tenant.padEnd(10)} ${key.environment.padEnd(10)} ${state}`);
    }
    return EXIT.ok;
  }
  const key = keys.find((candidate) => candidate.id === wanted);
  if (!key) {
    console.error(`No key with id "${wanted}" in the fixtures. Run without an id to list them.`);
    return EXIT.usage;
  }
  console.log(key.secret);
  return EXIT.ok;
}
