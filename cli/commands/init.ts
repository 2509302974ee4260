// `tenant-auth-conformance init URL`: a starter target file in the current directory, with every
// field the rules need and a comment on where each value comes from. Target files accept comments
// (JSONC); the decision and its reasons: docs/decisions/0012-target-files-accept-comments.md.
import { existsSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { PACKAGE_ROOT } from '../../kit/package-root.ts';
import { describeSchemaErrors, validatorFor } from '../../schemas/validators.ts';
import type { TargetFile } from '../../schemas/generated/target.ts';
import { CREDENTIAL_VARIABLES as VARIABLE, localhostHosts } from '../../conformance/deployment/url-target.ts';
import { commandArguments } from '../arguments.ts';
import { EXIT } from '../exit-codes.ts';

export const DEFAULT_TARGET_FILE = 'conformance-target.jsonc';

const HELP = `Usage: tenant-auth-conformance init BASE_URL [--output FILE] [--force]

Writes a starter target file for the tenant at BASE_URL (https://{tenant}.api.{domain}/v1):
every field the rules need, each with a comment on where its value comes from. Keys are never
written into it: it names the environment variables that hold them.

Options:
  --output FILE   where to write it (default ${DEFAULT_TARGET_FILE} in the current directory)
  --force         replace an existing file
  --help          print this help

Then: edit it, export the keys it names, and run
  tenant-auth-conformance run --target ${DEFAULT_TARGET_FILE}

Exit codes: 0 written, 2 a bad option or base URL, or the file exists (without --force).`;

export function main(argv: string[]): number {
  const parsed = commandArguments(
    argv,
    { output: { type: 'string' }, force: { type: 'boolean' }, help: { type: 'boolean' } },
    HELP,
  );
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  const [baseUrl, ...extra] = positionals;
  if (baseUrl === undefined || extra.length > 0) {
    console.error(`Give one base URL, e.g. https://acme.api.example.com/v1.\n\n${HELP}`);
    return EXIT.usage;
  }
  const problems = baseUrlProblems(baseUrl);
  if (problems.length > 0) {
    console.error(`Invalid base URL "${baseUrl}":\n  ${problems.join('\n  ')}`);
    return EXIT.usage;
  }
  const output = resolve(values.output ?? DEFAULT_TARGET_FILE);
  if (existsSync(output) && values.force !== true) {
    console.error(`${output} exists already. Edit it, choose another --output, or replace it with --force.`);
    return EXIT.usage;
  }
  try {
    writeFileSync(output, starterTarget(baseUrl, schemaReference(output)));
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    console.error(
      `Cannot write ${output} (${reason}): give an --output in a folder that exists and you can write to.`,
    );
    return EXIT.usage;
  }
  console.log(`Wrote ${output}.`);
  console.log(
    `Next: edit it, export the keys it names, then run: tenant-auth-conformance run --target ${relative(process.cwd(), output)}`,
  );
  return EXIT.ok;
}

function baseUrlProblems(baseUrl: string): string[] {
  const validate = validatorFor<TargetFile>('target.schema.json');
  if (validate({ baseUrl })) return [];
  return describeSchemaErrors(validate.errors).map((line) =>
    line.replace(
      /^\$\.baseUrl: must match pattern .*/,
      'must be https://{host}/v1: HTTPS, a host, and the path /v1',
    ),
  );
}

/**
 * `$schema` lets an editor check the file and show each field's description. Only a package
 * installed in the project gives a path that stays valid; one run through a temporary npx cache
 * does not, and is left out.
 */
function schemaReference(output: string): string | undefined {
  const schema = join(PACKAGE_ROOT, 'schemas', 'target.schema.json');
  const path = relative(dirname(output), schema);
  if (!path.split(sep).includes('node_modules') || path.startsWith(`..${sep}`)) return undefined;
  return `./${path.split(sep).join('/')}`;
}

function starterTarget(baseUrl: string, schema: string | undefined): string {
  const url = new URL(baseUrl);
  const [tenant, ...domain] = url.host.split('.');
  const otherTenantExample = `https://{another tenant}.${domain.join('.')}/v1`;
  return `// The deployment that tenant-auth-conformance checks (a target file: JSON with comments).
// Each field enables the rules that need it (\`tenant-auth-conformance rules\` lists what each
// rule needs); a rule whose input is missing is reported "not evaluated", never passed.
// Keys are never written here: each credential names the environment variable holding it.
{
${schema === undefined ? '' : `  "$schema": "${schema}",\n`}  // How reports name this target.
  "name": "${url.host}",

  // The tenant under test: https://{tenant}.api.{domain}/v1, as the tenant's API documentation
  // gives it (here the tenant is "${tenant}").
  "baseUrl": "${baseUrl}",

  // A second tenant of the same deployment, for the tenant-isolation rules: a test tenant you
  // control, e.g. ${otherTenantExample}
  // "otherTenantBaseUrl": "${otherTenantExample}",

  // The sandbox API of the tenant under test. The spec does not show its address (its
  // environment is https://sandbox-{tenant}.{domain}): ask the operator of the deployment.
  // "sandboxBaseUrl": "https://sandbox-${url.host}/v1",

  // Where plain HTTP is tried; by default the base URL with http:// and no port.
  // "plainHttpBaseUrl": "http://${url.hostname}/v1",

  // The keys, by the name of the environment variable that holds each. Make them in the
  // tenant's administration panel under Settings → API → API Keys (the CI system's secret store
  // then holds them), export each variable before the run, and remove an entry you cannot give:
  // its rules are reported not evaluated.
  "credentials": {
    // A production key with Full Access.
    "fullAccess": "${VARIABLE.fullAccess}",
    // A production key with Read Only access.
    "readOnly": "${VARIABLE.readOnly}",
    // A valid production key whose permissions exclude customers.
    "noCustomersPermission": "${VARIABLE.noCustomersPermission}",
    // A key you made and then revoked.
    "revoked": "${VARIABLE.revoked}",
    // A Development key: sandbox environment, same tenant (needs sandboxBaseUrl to be useful).
    "sandbox": "${VARIABLE.sandbox}",
    // A production key of the other tenant (otherTenantBaseUrl).
    "otherTenant": "${VARIABLE.otherTenant}",
    // A valid key you accept to expose: it is sent over plain HTTP and in URLs. Revoke it after.
    // "probe": "${VARIABLE.probe}",
  },

  // "default": HTTP-level rules only warn; "strict": they fail the run too.
  "profile": "default",

  // PEM file of a private CA to trust besides the system's, relative to this file.
  // "caFile": "certs/ca.pem",
${hostsLines(baseUrl)}}
`;
}

/** For a `*.localhost` base URL, the host map `run --base-url` uses too; nothing otherwise. */
function hostsLines(baseUrl: string): string {
  const hosts = localhostHosts(baseUrl);
  if (hosts === undefined) return '';
  const entries = Object.entries(hosts).map(([name, address]) => `"${name}": "${address}"`);
  return `\n  // *.localhost names resolve to the loopback address (Node's resolver does not map them).\n  "hosts": { ${entries.join(', ')} },\n`;
}
