// `registry retention --keep-last N --max-age-days D [--dry-run]`: the retention policy for bundle
// files, applied once (schedule it, e.g. daily). The run rows and verdicts stay; the files of runs
// beyond the newest N of their deployment, or older than D days, go — never those of a run that
// decides a version. The operator's; audited.
import { policyProblem, type RetentionPolicy } from '../../registry/store/retention.ts';
import { commandArguments } from '../arguments.ts';
import { EXIT } from '../exit-codes.ts';
import { REGISTRY_CLIENT_FLAGS, REGISTRY_CLIENT_OPTIONS, registryProblems } from './registry-publish.ts';
import { OPERATION_EXIT_CODES, operation } from './registry-operation.ts';

const HELP = `Usage: tenant-auth-conformance registry retention --registry URL [--keep-last N] [--max-age-days D]
                                                  [--dry-run] [--token-file FILE]

Applies the retention policy to the bundle files once: the files of a run go when it is beyond the
newest N runs of its deployment (--keep-last) or started more than D days ago (--max-age-days).
The run's row, its rule outcomes and its verdict stay, and so do the files of every run that
decides a version (the newest run not yanked of each version, profile and coverage). A removed
file answers 410. The operator's token only (registry publisher --operator); each pass is in the
audit list with the runs it touched. Run it on a schedule (cron, a CI job).

Options:
  --keep-last N         keep the files of the newest N runs of each deployment
  --max-age-days D      keep the files of runs started within D days
  --dry-run             list the runs whose files would go, remove nothing
${REGISTRY_CLIENT_OPTIONS}
  --help                print this help

${OPERATION_EXIT_CODES}`;

const whole = (text: string | undefined): number | undefined =>
  text === undefined ? undefined : /^[0-9]{1,7}$/.test(text) ? Number(text) : Number.NaN;

export async function main(argv: string[]): Promise<number> {
  const parsed = commandArguments(
    argv,
    {
      ...REGISTRY_CLIENT_FLAGS,
      'keep-last': { type: 'string' },
      'max-age-days': { type: 'string' },
      'dry-run': { type: 'boolean' },
    },
    HELP,
  );
  if (typeof parsed === 'number') return parsed;
  const { values } = parsed;
  const keepLast = whole(values['keep-last']);
  const maxAgeDays = whole(values['max-age-days']);
  const policy: RetentionPolicy = {
    ...(keepLast !== undefined ? { keepLast } : {}),
    ...(maxAgeDays !== undefined ? { maxAgeDays } : {}),
  };
  const problem = policyProblem(policy)
    ?.replace('keepLast', '--keep-last')
    .replace('maxAgeDays', '--max-age-days')
    .replace('NaN', 'not a number');
  const problems = [...registryProblems(values.registry), ...(problem ? [problem] : [])];
  if (problems.length > 0) {
    console.error(`${problems.join('\n')}\n\n${HELP}`);
    return EXIT.usage;
  }
  const dryRun = values['dry-run'] === true;
  return operation(
    values,
    { method: 'POST', path: '/api/v1/retention', body: { ...policy, dryRun } },
    (json) => {
      const { runs, bytes } = json as { runs: number[]; bytes: number };
      console.log(
        runs.length === 0
          ? 'No bundle files to remove under this policy.'
          : `${dryRun ? 'Would remove' : 'Removed'} the files of ${runs.length} run${runs.length > 1 ? 's' : ''} (${bytes} bytes): ${runs.join(', ')}.`,
      );
    },
  );
}
