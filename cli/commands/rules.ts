// `tenant-auth-conformance rules [--json]`: the rule catalog (conformance/catalog/rules.ts), for a person
// or, with --json, for a machine.
import { parseArgs } from 'node:util';
import { RULES } from '../../conformance/catalog/rules.ts';
import { EXIT } from '../exit-codes.ts';

const HELP = `Usage: tenant-auth-conformance rules [--json]

Prints every rule the suite checks: id, level (MUST, HTTP, ADVISORY), source, statement, and the
target inputs it needs (a rule whose input is missing is reported not evaluated).

Options:
  --json    one JSON array of {id, level, source, statement, needs}
  --help    print this help`;

export function main(argv: string[]): number {
  let json: boolean;
  try {
    const { values } = parseArgs({
      args: argv,
      options: { json: { type: 'boolean' }, help: { type: 'boolean' } },
      strict: true,
    });
    if (values.help === true) {
      console.log(HELP);
      return EXIT.ok;
    }
    json = values.json === true;
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${HELP}`);
    return EXIT.usage;
  }
  console.log(json ? JSON.stringify(RULES, null, 2) : catalogText());
  return EXIT.ok;
}

function catalogText(): string {
  return RULES.map((rule) =>
    [
      `${rule.id}  [${rule.level}]  ${rule.source}`,
      `  ${rule.statement}`,
      `  needs: ${rule.needs.length === 0 ? 'the base URL only' : rule.needs.join(', ')}`,
    ].join('\n'),
  ).join('\n\n');
}
