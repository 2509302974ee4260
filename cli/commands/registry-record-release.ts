// `registry record-release --deployment D --version V`: records that version V of D is live. The
// deployment's page and badge then show the live version's verdict, `diff` compares against it by
// default and `can-i-ship --replacing-live` asks about the version that would replace it.
import { deploymentProblem, versionProblem } from '../../registry/publish/upload.ts';
import { commandArguments } from '../arguments.ts';
import { EXIT } from '../exit-codes.ts';
import { REGISTRY_CLIENT_FLAGS, REGISTRY_CLIENT_OPTIONS, registryProblems } from './registry-publish.ts';
import { OPERATION_EXIT_CODES, operation } from './registry-operation.ts';

const HELP = `Usage: tenant-auth-conformance registry record-release --registry URL --deployment NAME --version V
                                                       [--token-file FILE]

Records that version V of the deployment is live (run it in the release pipeline, after the
deploy). The newest record is the live version: a rollback is a new record. The deployment's page
and badge then show the live version's verdict; \`registry diff\` without --from compares with it,
and \`registry can-i-ship --replacing-live\` asks about the version that would replace it. The
version must have a run in the registry. The deployment's publisher or the operator may record.

Options:
  --deployment NAME, --version V
${REGISTRY_CLIENT_OPTIONS}
  --help                print this help

${OPERATION_EXIT_CODES}`;

export async function main(argv: string[]): Promise<number> {
  const parsed = commandArguments(
    argv,
    { ...REGISTRY_CLIENT_FLAGS, deployment: { type: 'string' }, version: { type: 'string' } },
    HELP,
  );
  if (typeof parsed === 'number') return parsed;
  const { values } = parsed;
  const problems = [
    ...registryProblems(values.registry),
    ...(values.deployment === undefined
      ? ['Give --deployment NAME.']
      : [deploymentProblem(values.deployment) ?? []].flat()),
    ...(values.version === undefined ? ['Give --version V.'] : [versionProblem(values.version) ?? []].flat()),
  ];
  if (problems.length > 0) {
    console.error(`${problems.join('\n')}\n\n${HELP}`);
    return EXIT.usage;
  }
  return operation(
    values,
    {
      method: 'POST',
      path: `/api/v1/deployments/${values.deployment ?? ''}/releases`,
      body: { version: values.version },
    },
    () => console.log(`Recorded: ${values.deployment} ${values.version} is live.`),
  );
}
