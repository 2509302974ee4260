// docs/rules.md, rendered from the catalog (never kept by hand).
import { RULES } from '../catalog/rules.ts';

const NEEDS_NOTHING = 'base URL only';

export function renderRulesDoc(): string {
  const counts = (['MUST', 'HTTP', 'ADVISORY'] as const).map(
    (level) => `${RULES.filter((rule) => rule.level === level).length} ${level}`,
  );
  return [
    '# Rule catalog',
    '',
    `Generated from \`conformance/catalog/rules.ts\` by \`npm run docs\`; do not edit. ${RULES.length} rules: ${counts.join(', ')}.`,
    '',
    'Levels (see [decisions.md](decisions.md)): **MUST** comes from a sentence of the spec and fails the run;',
    '**HTTP** comes from RFC 9110 / RFC 6750 where the spec is silent and fails the run only under the `strict`',
    'profile; **ADVISORY** is security practice and only ever warns. A rule whose inputs the target lacks is',
    'reported *not evaluated*, never passed.',
    '',
    '| Id | Level | Source | Statement | Needs |',
    '|---|---|---|---|---|',
    ...RULES.map(
      (rule) =>
        `| ${rule.id} | ${rule.level} | ${rule.source} | ${rule.statement.replace(/\|/g, '\\|')} | ${rule.needs.length > 0 ? rule.needs.join(', ') : NEEDS_NOTHING} |`,
    ),
    '',
  ].join('\n');
}
