// `tenant-auth-conformance run`: the conformance run of conformance/run/run.ts with all its options,
// plus a target given by URL alone (--base-url), which becomes a target file for the run.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { main as runConformance, runHelp, type SettingsResolved } from '../../conformance/run/run.ts';
import {
  CREDENTIAL_VARIABLES,
  URL_TARGET_FILE,
  isBaseUrl,
  urlTarget,
} from '../../conformance/deployment/url-target.ts';
import { EXIT } from '../exit-codes.ts';
import { PUBLISH_HELP, publishAfterRun, takePublishOptions } from './registry-run-publish.ts';
import { inputEnvironment } from '../../conformance/env.ts';

const URL_OPTIONS = ['base-url', 'other-tenant-base-url', 'sandbox-base-url', 'ca-file'] as const;

const URL_HELP = `
A target by URL, without a target file (not with --target):
  --base-url URL     the tenant under test, https://{tenant}.api.{domain}/v1
  --other-tenant-base-url URL
                     a second tenant of the same deployment, for the isolation rules
  --sandbox-base-url URL
                     the sandbox API of the tenant under test
  --ca-file FILE     PEM of a CA to trust besides the system's
  Keys come from these environment variables; a rule whose key is not set is reported not
  evaluated, with the variable that would enable it:
${Object.entries(CREDENTIAL_VARIABLES)
  .map(([credential, variable]) => `    ${variable.padEnd(30)} ${credential}`)
  .join('\n')}
  For the other fields of a target file (plainHttpBaseUrl, hosts, keyMinting), write one: see \`init\`.
`;

/**
 * `checkedByRegistry`: the run is the registry's own (`registry recheck` runs the kit through here,
 * so a re-check is the same run and the same publish as a vendor's).
 */
export async function main(argv: string[], { checkedByRegistry = false } = {}): Promise<number> {
  // --publish URL … is the registry's: taken out here, its bundle sent when the run ends.
  const publishing = takePublishOptions(argv);
  if (typeof publishing === 'string') {
    console.error(publishing);
    return EXIT.usage;
  }
  // The report directory the run resolved (--reports over CONFORMANCE_REPORT_DIR): its bundle is sent.
  let reportDirectory: string | undefined;
  const code = await runWithoutPublishing(publishing.rest, (settings) => {
    reportDirectory = settings.reportDirectory;
  });
  if (!publishing.publish || argv.includes('--help')) return code;
  return publishAfterRun(
    { ...publishing.publish, ...(checkedByRegistry ? { checkedByRegistry } : {}) },
    code,
    reportDirectory,
  );
}

async function runWithoutPublishing(argv: string[], resolved: SettingsResolved): Promise<number> {
  const { values, tokens } = parseArgs({
    args: argv,
    options: Object.fromEntries(URL_OPTIONS.map((name) => [name, { type: 'string' as const }])),
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  if (argv.includes('--help')) {
    // One help: the run's options, these, then the run's own table of exit codes.
    console.log(runHelp(URL_HELP + PUBLISH_HELP));
    return EXIT.ok;
  }
  const urlOptionGiven = URL_OPTIONS.some((name) => values[name] !== undefined);
  if (!urlOptionGiven) return runConformance(argv, resolved);

  const baseUrl = values['base-url'];
  if (typeof baseUrl !== 'string') {
    console.error('--other-tenant-base-url, --sandbox-base-url and --ca-file need --base-url URL.');
    return EXIT.usage;
  }
  // Checked here, in the terms the user gave: the target file made of them is the kit's own.
  for (const name of ['base-url', 'other-tenant-base-url', 'sandbox-base-url'] as const) {
    const value = values[name];
    if (typeof value === 'string' && !isBaseUrl(value)) {
      console.error(
        `Invalid --${name} "${value}": give a base URL https://{host}/v1, such as https://acme.api.example.com/v1.`,
      );
      return EXIT.usage;
    }
  }
  if (argv.some((argument) => argument === '--target' || argument.startsWith('--target='))) {
    console.error('Give either --target FILE or --base-url URL, not both.');
    return EXIT.usage;
  }
  const text = (name: (typeof URL_OPTIONS)[number]): string | undefined => {
    const value = values[name];
    return typeof value === 'string' ? value : undefined;
  };
  const caFile = text('ca-file');
  const target = urlTarget(
    {
      baseUrl,
      otherTenantBaseUrl: text('other-tenant-base-url'),
      sandboxBaseUrl: text('sandbox-base-url'),
      caFile: caFile === undefined ? undefined : resolve(caFile),
    },
    inputEnvironment(),
  );
  // The file names variables, never keys; it is checked like any target file (schema included).
  const directory = mkdtempSync(join(tmpdir(), 'conformance-url-target-'));
  try {
    const file = join(directory, URL_TARGET_FILE);
    writeFileSync(file, `${JSON.stringify(target, null, 2)}\n`);
    // Everything but the URL options (their values are part of their token) goes on unchanged.
    const rest = tokens.flatMap((token) =>
      token.kind === 'option' && (URL_OPTIONS as readonly string[]).includes(token.name)
        ? []
        : [argv[token.index] ?? ''],
    );
    return await runConformance(['--target', file, ...rest], resolved);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}
