// `registry publish DIR --registry URL --deployment NAME --version V`: sends a signed bundle to a
// registry, which verifies it with the publisher's keys and stores it.
import { BUNDLE_DIRECTORY } from '../../conformance/attestation/bundle-files.ts';
import {
  RegistryUnreachable,
  errorMessage,
  readToken,
  registryClient,
  TOKEN_VARIABLE,
} from '../../registry/client.ts';
import { deploymentProblem, uploadPieces, versionProblem } from '../../registry/publish/upload.ts';
import { existsSync, statSync } from 'node:fs';
import { commandArguments } from '../arguments.ts';
import { EXIT } from '../exit-codes.ts';

export const REGISTRY_CLIENT_OPTIONS = `  --registry URL        the registry (https://…)
  --token-file FILE     the publisher's token (default: $${TOKEN_VARIABLE})
  --ca-file FILE        a CA to trust besides the system's (the kit's local CA: .certs/ca.crt)`;

/** The flags every command that talks to a registry takes, and --help. */
export const REGISTRY_CLIENT_FLAGS = {
  registry: { type: 'string' },
  'token-file': { type: 'string' },
  'ca-file': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** What is wrong with the --registry given, if anything. */
export function registryProblems(registry: string | undefined): string[] {
  return registry === undefined || !URL.canParse(registry) ? ['Give the registry: --registry https://…'] : [];
}

/**
 * Talks to the registry the flags name, with `token` if any, and closes the connection after:
 * a registry that cannot be reached is exit 3 with its reason, whatever the command asked.
 */
export async function withRegistry(
  values: { registry?: string | undefined; 'ca-file'?: string | undefined },
  token: string | undefined,
  talk: (client: ReturnType<typeof registryClient>) => Promise<number>,
): Promise<number> {
  const client = registryClient(values.registry ?? '', {
    ...(token !== undefined ? { token } : {}),
    ...(values['ca-file'] !== undefined ? { caFile: values['ca-file'] } : {}),
  });
  try {
    return await talk(client);
  } catch (error) {
    if (!(error instanceof RegistryUnreachable)) throw error;
    console.error(error.message);
    return EXIT.setup;
  } finally {
    await client.close();
  }
}

const HELP = `Usage: tenant-auth-conformance registry publish DIR --registry URL --deployment NAME
                                                --version V [--token-file FILE] [--ca-file FILE]

Sends the bundle a signed run wrote (REPORTS/${BUNDLE_DIRECTORY}) to a registry. The registry checks it as
\`verify\` does, with your keys as the publishers file names them, and stores the run under the
deployment and version given; the same bundle sent again is the same run.

Options:
  --deployment NAME     your deployment's name in the registry: lower-case letters, digits, dashes
  --version V           the version the run certifies (semver, or a commit)
  --target-moved        the deployment's target moved: accept a run of another base URL or other
                        tenant than the deployment is bound to (the move shows in its history)
${REGISTRY_CLIENT_OPTIONS}
  --help                print this help

Exit codes:
  0  stored (or stored before: the same bundle)
  1  refused: the answer says why (not verified, a key not yours, a bad name…); nothing stored
  2  usage error
  3  the registry cannot be reached, or failed`;

export async function main(argv: string[]): Promise<number> {
  const parsed = commandArguments(
    argv,
    {
      ...REGISTRY_CLIENT_FLAGS,
      deployment: { type: 'string' },
      version: { type: 'string' },
      'target-moved': { type: 'boolean' },
    },
    HELP,
  );
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  const directory = positionals[0];
  const problems = [
    ...(positionals.length !== 1 ? ['Give one bundle directory.'] : []),
    ...(directory !== undefined && !(existsSync(directory) && statSync(directory).isDirectory())
      ? [`${directory} is not a directory: give the bundle a signed run wrote (REPORTS/${BUNDLE_DIRECTORY}).`]
      : []),
    ...registryProblems(values.registry),
    ...(values.deployment === undefined
      ? ['Give --deployment NAME.']
      : [deploymentProblem(values.deployment) ?? []].flat()),
    ...(values.version === undefined ? ['Give --version V.'] : [versionProblem(values.version) ?? []].flat()),
  ];
  const token = readToken(values['token-file']);
  if (token === undefined)
    problems.push(`Give the publisher's token: --token-file FILE or $${TOKEN_VARIABLE}.`);
  if (problems.length > 0) {
    console.error(`${problems.join('\n')}\n\n${HELP}`);
    return EXIT.usage;
  }
  return withRegistry(values, token, async (client) => {
    const answer = await client.post('/api/v1/runs', () =>
      uploadPieces(
        directory ?? '',
        values.deployment ?? '',
        values.version ?? '',
        values['target-moved'] === true,
      ),
    );
    if (answer.status === 200 || answer.status === 201) {
      const { run, note } = answer.json as {
        run: { id: number; verdict: string; links: { page: string } };
        note?: string;
      };
      console.log(
        `${answer.status === 201 ? 'Published' : 'Already published'}: ${values.deployment} ${values.version} is run ${run.id}, ${run.verdict}: ${new URL(run.links.page, values.registry).href}`,
      );
      if (note !== undefined) console.log(note);
      return EXIT.ok;
    }
    console.error(`Refused: ${errorMessage(answer)}`);
    return answer.status >= 500 ? EXIT.setup : EXIT.notConformant;
  });
}
