// `tenant-auth-conformance keys` (in a clone: `npm run --silent fixture-key --`): prints fixture
// keys, so that a person can paste a curl command, or export the variables a target file names,
// without the server ever printing a key. Fixture keys are public test values; this command is
// still the only place they are shown.
import { DEFAULT_FIXTURES_FILE, FixturesError, loadFixtures } from '../../reference-server/store/fixtures.ts';
import { EMBEDDED_TARGET_FILE, fixtureKeyEnvironment } from '../../conformance/deployment/embedded-target.ts';
import { readTargetFile } from '../../conformance/deployment/target.ts';
import { CREDENTIAL_VARIABLES } from '../../conformance/deployment/url-target.ts';
import { commandArguments } from '../arguments.ts';
import { EXIT } from '../exit-codes.ts';

const HELP = `Usage: tenant-auth-conformance keys [--fixtures FILE] [KEY_ID | --export [--names reference|conformance]]
       (in a clone of the repository: npm run --silent fixture-key -- …)

Without an argument, lists the key ids of the reference fixtures (no secrets): id, tenant,
environment, access or revoked. With KEY_ID, prints that key alone. With --export, prints
\`export REFERENCE_KEY_…=…\` lines for every key (eval them for fixtures/reference-target.json).

Options:
  --fixtures FILE   another fixtures file (default: the package's fixtures/reference.json)
  --export          print export lines
  --names NAMES     with --export, which variables: reference (default), REFERENCE_KEY_<KEY ID>
                    for every key; or conformance, the CONFORMANCE_KEY_* that a target by URL
                    reads (run --base-url, a { baseUrl } target of conformanceProjects), each set
                    to the key fixtures/reference-target.json gives that credential (acme's keys;
                    globex's for the other tenant). Export them only to check the reference server:
                    they are public test keys, no key of another deployment.
  --help            print this help

Exit codes: 0 done, 2 unknown option or key id, 3 unreadable fixtures file.`;

export function main(argv: string[]): number {
  const parsed = commandArguments(
    argv,
    {
      fixtures: { type: 'string' },
      export: { type: 'boolean' },
      names: { type: 'string' },
      help: { type: 'boolean' },
    },
    HELP,
  );
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  const names = values.names ?? 'reference';
  if (names !== 'reference' && names !== 'conformance') {
    console.error(`--names takes reference or conformance, not "${names}".\n${HELP.split('\n')[0]}`);
    return EXIT.usage;
  }
  if (values.names !== undefined && values.export !== true) {
    console.error(`--names chooses the variables of --export: give both.\n${HELP.split('\n')[0]}`);
    return EXIT.usage;
  }
  try {
    const fixturesFile = values.fixtures ?? DEFAULT_FIXTURES_FILE;
    if (names === 'conformance') return printConformanceNames(fixturesFile);
    return printKeys(fixturesFile, values.export === true, positionals[0]);
  } catch (error) {
    if (!(error instanceof FixturesError)) throw error;
    console.error(error.message);
    return EXIT.setup;
  }
}

/**
 * `export CONFORMANCE_KEY_…=…`: each credential of the reference target set to the fixture key it
 * names there, under the variable a target by URL reads it from.
 */
function printConformanceNames(fixturesFile: string): number {
  const keys = fixtureKeyEnvironment(fixturesFile);
  const credentials = readTargetFile(EMBEDDED_TARGET_FILE).credentials ?? {};
  for (const [credential, variable] of Object.entries(CREDENTIAL_VARIABLES)) {
    const referenceVariable = credentials[credential as keyof typeof credentials];
    const value = referenceVariable === undefined ? undefined : keys[referenceVariable];
    if (value === undefined) {
      console.error(`# ${variable}: the fixtures hold no key for ${credential}; not set.`);
      continue;
    }
    console.log(`export ${variable}=${value}`);
  }
  return EXIT.ok;
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
