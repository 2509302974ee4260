// `run … --publish URL --publish-deployment NAME --publish-version V`: the run's bundle sent to a
// registry when the run ends, as `registry publish` would send it. The options are taken out of the
// run's own before it starts; the run's exit code is kept, and a publish that fails turns an exit 0
// into 3 (the pipeline must not believe a run was recorded that was not).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { BUNDLE_DIRECTORY } from '../../conformance/attestation/bundle-files.ts';
import {
  RegistryUnreachable,
  errorMessage,
  readToken,
  registryClient,
  TOKEN_VARIABLE,
} from '../../registry/client.ts';
import { deploymentProblem, uploadPieces, versionProblem } from '../../registry/publish/upload.ts';
import { EXIT } from '../exit-codes.ts';

const PUBLISH_OPTIONS = [
  'publish',
  'publish-deployment',
  'publish-version',
  'publish-token-file',
  'publish-ca-file',
] as const;
/** The one publish option that takes no value. */
const TARGET_MOVED = 'publish-target-moved';

export const PUBLISH_HELP = `
Publishing the run's bundle to a certification registry when the run ends (docs/registry.md):
  --publish URL      the registry (https://…); the bundle is REPORTS/${BUNDLE_DIRECTORY}, so sign the run
                     (--sign-key) with a key the registry knows as yours
  --publish-deployment NAME, --publish-version V
                     the deployment's name in the registry and the version the run certifies
  --publish-token-file FILE
                     the publish token (default: $${TOKEN_VARIABLE})
  --publish-ca-file FILE
                     a CA to trust besides the system's, for the registry
  --publish-target-moved
                     the deployment's target moved (registry publish --target-moved): the registry
                     accepts a run of another base URL or other tenant, and keeps the move
  The run's exit code is kept; a publish that fails makes an exit 0 into 3.
`;

export interface PublishRequest {
  registry: string;
  deployment: string;
  version: string;
  tokenFile?: string;
  caFile?: string;
  /** The deployment's target moved: the registry rebinds it to this run's (and keeps the move). */
  targetMoved?: boolean;
  /** `registry recheck`: the registry's own run (the operator's token, the registry's key). */
  checkedByRegistry?: boolean;
}

/** The run's arguments without the publish options, and those options; or a usage error. */
export function takePublishOptions(
  argv: readonly string[],
): { rest: string[]; publish?: PublishRequest } | string {
  const { values, tokens } = parseArgs({
    args: [...argv],
    options: {
      ...Object.fromEntries(PUBLISH_OPTIONS.map((name) => [name, { type: 'string' as const }])),
      [TARGET_MOVED]: { type: 'boolean' as const },
    },
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const text = (name: (typeof PUBLISH_OPTIONS)[number]): string | undefined =>
    typeof values[name] === 'string' ? values[name] : undefined;
  const rest = tokens.flatMap((token) =>
    token.kind === 'option' && [...PUBLISH_OPTIONS, TARGET_MOVED].includes(token.name)
      ? []
      : [argv[token.index] ?? ''],
  );
  const registry = text('publish');
  if (registry === undefined) {
    const stray = [...PUBLISH_OPTIONS, TARGET_MOVED].find(
      (name) => name !== 'publish' && values[name] !== undefined,
    );
    return stray ? `--${stray} goes with --publish URL.` : { rest };
  }
  const deployment = text('publish-deployment');
  const version = text('publish-version');
  const problem = !URL.canParse(registry)
    ? `--publish: "${registry}" is not a URL; give the registry, https://…`
    : deployment === undefined
      ? '--publish needs --publish-deployment NAME.'
      : version === undefined
        ? '--publish needs --publish-version V.'
        : (deploymentProblem(deployment) ?? versionProblem(version));
  if (problem) return problem.replace(/^"(deployment|version)"/, '--publish-$1');
  const tokenFile = text('publish-token-file');
  const caFile = text('publish-ca-file');
  if (values[TARGET_MOVED] !== undefined && values[TARGET_MOVED] !== true)
    return `--${TARGET_MOVED} takes no value.`;
  return {
    rest,
    publish: {
      registry,
      deployment: deployment ?? '',
      version: version ?? '',
      ...(tokenFile !== undefined ? { tokenFile } : {}),
      ...(caFile !== undefined ? { caFile } : {}),
      ...(values[TARGET_MOVED] === true ? { targetMoved: true } : {}),
    },
  };
}

/** Sends the run's bundle; returns the exit code the command ends with. */
export async function publishAfterRun(
  request: PublishRequest,
  runExit: number,
  reportDirectory: string | undefined,
): Promise<number> {
  const failed = (message: string): number => {
    console.error(`Not published: ${message}`);
    return runExit === EXIT.ok ? EXIT.setup : runExit;
  };
  // No directory: the run stopped before its settings were resolved (a usage error, printed above).
  if (reportDirectory === undefined) return failed('the run did not start, so there is no bundle to send.');
  const bundle = join(reportDirectory, BUNDLE_DIRECTORY);
  if (!existsSync(bundle))
    return failed(
      `the run wrote no bundle (${bundle}): sign it with --sign-key, and see why it stopped above.`,
    );
  const token = readToken(request.tokenFile);
  if (token === undefined)
    return failed(`no publish token: --publish-token-file FILE or $${TOKEN_VARIABLE}.`);
  const client = registryClient(request.registry, {
    token,
    caOption: '--publish-ca-file',
    ...(request.caFile !== undefined ? { caFile: request.caFile } : {}),
  });
  try {
    const answer = await client.post('/api/v1/runs', () =>
      uploadPieces(
        bundle,
        request.deployment,
        request.version,
        request.targetMoved === true,
        request.checkedByRegistry === true,
      ),
    );
    if (answer.status !== 200 && answer.status !== 201) return failed(errorMessage(answer));
    const { run } = answer.json as {
      run: { id: number; verdict: string; checkedBy?: string; links: { page: string } };
    };
    console.log(
      `${answer.status === 201 ? 'Published' : 'Already published'}: ${request.deployment} ${request.version} is run ${run.id}, ${run.verdict}${run.checkedBy === 'registry' ? ', checked by the registry' : ''}: ${new URL(run.links.page, request.registry).href}`,
    );
    return runExit;
  } catch (error) {
    if (!(error instanceof RegistryUnreachable)) throw error;
    return failed(error.message);
  } finally {
    await client.close();
  }
}
