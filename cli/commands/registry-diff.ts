// `registry diff --deployment NAME --from V1 --to V2`: which rules regressed, recovered or changed
// level between two versions, and which flip between runs of one version (unstable). Exit 1 when a
// rule regressed, so that a pipeline can stop on it.
import type { VersionDiff } from '../../registry/ask/diff.ts';
import { errorMessage, readToken } from '../../registry/client.ts';
import { commandArguments } from '../arguments.ts';
import { EXIT } from '../exit-codes.ts';
import {
  REGISTRY_CLIENT_FLAGS,
  REGISTRY_CLIENT_OPTIONS,
  registryProblems,
  withRegistry,
} from './registry-publish.ts';

const HELP = `Usage: tenant-auth-conformance registry diff --registry URL --deployment NAME [--from V1] --to V2 [--json]

Compares every stored run of two versions rule by rule: rules that passed in V1 and fail, warn or
err in V2 (regressed), the reverse (recovered), other changes of outcome, rules whose level
differs between the catalogs the two ran, and rules whose outcome differs between runs of one
version (unstable: never counted as regressed or recovered).

Options:
  --deployment NAME, --to V2
  --from V1             the baseline (default: the live version, as registry record-release recorded it)
  --json                print the registry's answer as JSON
${REGISTRY_CLIENT_OPTIONS} (a token is needed only with --private-reads)
  --help                print this help

Exit codes:
  0  no rule regressed
  1  a rule regressed from V1 to V2
  2  usage error, or a version with no run
  3  the registry cannot be reached, or failed`;

export function renderDiff(diff: VersionDiff): string {
  const changes = (title: string, list: VersionDiff['regressed']): string[] =>
    list.length === 0
      ? []
      : [
          `${title} (${list.length}):`,
          ...list.map(
            (rule) =>
              `  ${rule.ruleId} (${rule.level}): ${rule.from} → ${rule.to}${
                rule.protocols
                  ? ` (${Object.entries(rule.protocols)
                      .map(([protocol, change]) => `${protocol}: ${change.from} → ${change.to}`)
                      .join('; ')})`
                  : ''
              }`,
          ),
        ];
  const lines = [
    `${diff.deployment}: ${diff.from.version} (runs ${diff.from.runs.join(', ')}) → ${diff.to.version} (runs ${diff.to.runs.join(', ')})`,
    ...(diff.targetChanged
      ? [
          `The target moved between these versions (${diff.targetChanged.from.join('; ')} → ${diff.targetChanged.to.join('; ')}): a change below may be the target's, not the version's.`,
        ]
      : []),
    ...changes('Regressed', diff.regressed),
    ...changes('Recovered', diff.recovered),
    ...changes('Changed', diff.changed),
    ...(diff.changedLevel.length > 0
      ? [
          `Changed level (${diff.changedLevel.length}):`,
          ...diff.changedLevel.map((rule) => `  ${rule.ruleId}: ${rule.from} → ${rule.to}`),
        ]
      : []),
    ...(diff.unstable.length > 0
      ? [
          `Unstable (${diff.unstable.length}): the outcome differs between runs of one version`,
          ...diff.unstable.map(
            (rule) =>
              `  ${rule.ruleId} in ${rule.version}: ${rule.verdicts.map((item) => `run ${item.runId} ${item.verdict}`).join(', ')}`,
          ),
        ]
      : []),
  ];
  if (lines.length === (diff.targetChanged ? 2 : 1)) lines.push('No rule changed.');
  return lines.join('\n');
}

export async function main(argv: string[]): Promise<number> {
  const parsed = commandArguments(
    argv,
    {
      ...REGISTRY_CLIENT_FLAGS,
      deployment: { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      json: { type: 'boolean' },
    },
    HELP,
  );
  if (typeof parsed === 'number') return parsed;
  const { values } = parsed;
  const problems = [
    ...registryProblems(values.registry),
    ...(['deployment', 'to'] as const)
      .filter((name) => values[name] === undefined)
      .map((name) => `Give --${name}.`),
  ];
  if (problems.length > 0) {
    console.error(`${problems.join('\n')}\n\n${HELP}`);
    return EXIT.usage;
  }
  const query = new URLSearchParams({
    deployment: values.deployment ?? '',
    ...(values.from !== undefined ? { from: values.from } : {}),
    to: values.to ?? '',
  });
  return withRegistry(values, readToken(values['token-file']), async (client) => {
    const answer = await client.get(`/api/v1/diff?${query.toString()}`);
    if (answer.status !== 200) {
      console.error(errorMessage(answer));
      return answer.status >= 500 ? EXIT.setup : EXIT.usage;
    }
    const diff = answer.json as VersionDiff;
    console.log(values.json === true ? JSON.stringify(diff, null, 2) : renderDiff(diff));
    return diff.regressed.length > 0 ? EXIT.notConformant : EXIT.ok;
  });
}
