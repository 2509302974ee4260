// What makes a rule's declaration complete (conformance/run/rule-declaration.ts), as lists of
// problems a test can assert empty, and a test of the checks themselves can feed a bad declaration.
import { RULE_DECLARATIONS, type RuleId } from '../../conformance/catalog/rules.ts';
import { READINGS, type RuleDeclaration } from '../../conformance/run/rule-declaration.ts';

const LEVELS: readonly string[] = ['MUST', 'HTTP', 'ADVISORY'];

/** Every way a declaration falls short: its id, its wording, its level, its reading or its check. */
export function declarationProblems(declarations: readonly RuleDeclaration[], idPattern: RegExp): string[] {
  const seen = new Set<string>();
  return declarations.flatMap((rule) => {
    const problems: string[] = [];
    if (!idPattern.test(rule.id)) problems.push(`the id does not match ${String(idPattern)}`);
    if (seen.has(rule.id)) problems.push('the id is declared twice');
    seen.add(rule.id);
    if (!LEVELS.includes(rule.level)) problems.push(`no level (${LEVELS.join(', ')})`);
    if (rule.source.trim() === '') problems.push('no source');
    if (rule.statement.trim().length < 2 || !rule.statement.endsWith('.'))
      problems.push('no statement (a full sentence)');
    if (!(READINGS as readonly string[]).includes(rule.reads))
      problems.push(`no reading (reads: ${READINGS.join(', ')})`);
    if (typeof rule.check !== 'function') problems.push('no check');
    if (rule.notApplicableOnReference?.trim() === '')
      problems.push('notApplicableOnReference without the reason');
    return problems.map((problem) => `${rule.id}: ${problem}`);
  });
}

/**
 * The rules no fault catches (each fault's `catches`, mutation/faults/), except those declared not
 * applicable on the reference (`notApplicableOnReference`): a fault proves a rule can fail.
 */
export function rulesNoFaultCatches(
  declarations: readonly RuleDeclaration[],
  faults: readonly { catches: readonly string[] }[],
): string[] {
  const caught = new Set(faults.flatMap((fault) => fault.catches));
  return declarations
    .filter((rule) => !caught.has(rule.id) && rule.notApplicableOnReference === undefined)
    .map((rule) => `${rule.level} ${rule.id}`);
}

/**
 * The rules the reference server, correct as it is, leaves not applicable, each with the phrase
 * its reason gives (their declarations' `notApplicableOnReference`): what a test expecting the
 * reference to pass every rule allows instead.
 */
export const NOT_APPLICABLE_ON_REFERENCE: readonly { id: RuleId; why: string }[] = RULE_DECLARATIONS.flatMap(
  (rule) =>
    rule.notApplicableOnReference === undefined ? [] : [{ id: rule.id, why: rule.notApplicableOnReference }],
);
