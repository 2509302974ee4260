// `registry yank RUN --reason "…"`: withdraws a run published by mistake or forged. The run is kept
// and shown as yanked, and decides nothing from then on; the yank is audited.
import { reasonProblem } from '../../registry/store/yanks.ts';
import { commandArguments } from '../arguments.ts';
import { EXIT } from '../exit-codes.ts';
import { REGISTRY_CLIENT_FLAGS, REGISTRY_CLIENT_OPTIONS, registryProblems } from './registry-publish.ts';
import { OPERATION_EXIT_CODES, operation } from './registry-operation.ts';

const HELP = `Usage: tenant-auth-conformance registry yank RUN --reason "…" --registry URL [--token-file FILE]

Yanks run RUN (its number in the registry): the run and its files are kept, shown as yanked with
who, when and why, and it decides nothing from then on — not can-i-ship, not diff, not the badge,
not the certified list. The yank is in the audit list (registry audit). The deployment's own
publisher or the registry's operator (registry publisher --operator) may yank; a yank is not undone.

Options:
  --reason TEXT         why (one line, up to 500 characters): kept in the run and the audit list
${REGISTRY_CLIENT_OPTIONS}
  --help                print this help

${OPERATION_EXIT_CODES}`;

export async function main(argv: string[]): Promise<number> {
  const parsed = commandArguments(argv, { ...REGISTRY_CLIENT_FLAGS, reason: { type: 'string' } }, HELP);
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  const run = positionals[0];
  const problems = [
    ...(positionals.length !== 1 || !/^[1-9][0-9]{0,9}$/.test(run ?? '')
      ? ['Give one run number (the N of /runs/N).']
      : []),
    ...registryProblems(values.registry),
    ...[reasonProblem(values.reason) ?? []].flat(),
  ];
  if (problems.length > 0) {
    console.error(`${problems.join('\n')}\n\n${HELP}`);
    return EXIT.usage;
  }
  return operation(
    values,
    { method: 'POST', path: `/api/v1/runs/${run}/yank`, body: { reason: values.reason } },
    (json) => {
      const yanked = (json as { run: { deployment: string; version: string; yanked: { at: string } } }).run;
      console.log(
        `Yanked run ${run} (${yanked.deployment} ${yanked.version}) at ${yanked.yanked.at}: kept, and deciding nothing.`,
      );
    },
  );
}
