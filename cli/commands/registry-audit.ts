// `registry audit [--limit N]`: the operator reads the audit list — every yank, release and
// retention pass, newest first, with who, when, what and why.
import { commandArguments } from '../arguments.ts';
import { EXIT } from '../exit-codes.ts';
import { REGISTRY_CLIENT_FLAGS, REGISTRY_CLIENT_OPTIONS, registryProblems } from './registry-publish.ts';
import { OPERATION_EXIT_CODES, operation } from './registry-operation.ts';
import type { AuditEntry } from '../../registry/store/audit.ts';

const HELP = `Usage: tenant-auth-conformance registry audit --registry URL [--limit N] [--json] [--token-file FILE]

Prints the audit list, newest first: every yank (registry yank), release recorded (registry
record-release) and retention pass (registry retention), with when, who, what and why. The
operator's token only (registry publisher --operator).

Options:
  --limit N             how many entries, 1 to 1000 (default 100)
  --json                print the registry's answer as JSON
${REGISTRY_CLIENT_OPTIONS}
  --help                print this help

${OPERATION_EXIT_CODES}`;

export async function main(argv: string[]): Promise<number> {
  const parsed = commandArguments(
    argv,
    { ...REGISTRY_CLIENT_FLAGS, limit: { type: 'string' }, json: { type: 'boolean' } },
    HELP,
  );
  if (typeof parsed === 'number') return parsed;
  const { values } = parsed;
  const limit = values.limit ?? '100';
  const problems = [
    ...registryProblems(values.registry),
    ...(/^[0-9]{1,4}$/.test(limit) && Number(limit) >= 1 && Number(limit) <= 1000
      ? []
      : [`--limit: "${limit.slice(0, 20)}" is not a whole number from 1 to 1000.`]),
  ];
  if (problems.length > 0) {
    console.error(`${problems.join('\n')}\n\n${HELP}`);
    return EXIT.usage;
  }
  return operation(values, { method: 'GET', path: `/api/v1/audit?limit=${limit}` }, (json) => {
    const { entries } = json as { entries: AuditEntry[] };
    if (values.json === true) console.log(JSON.stringify(json, null, 2));
    else if (entries.length === 0) console.log('The audit list is empty.');
    else
      for (const entry of entries)
        console.log(
          `${entry.at}  ${entry.actor}  ${entry.action} ${entry.subject}${entry.reason !== null ? `: ${entry.reason}` : ''}${entry.action === 'release' ? ` (${String(entry.detail.version)})` : ''}`,
        );
  });
}
