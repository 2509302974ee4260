// docs/rules.md, rendered from the catalog (never kept by hand).
import { BREACHES, RUN_INVARIANTS, type Breach } from '../catalog/run-invariants.ts';
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
    ...invariantsTable(),
  ].join('\n');
}

/** The run's invariants, and which MUST each way of breaking one fails (conformance/catalog/run-invariants.ts). */
function invariantsTable(): string[] {
  return [
    "## The run's invariants",
    '',
    "After the rules have run, every exchange of the run — every rule's probes at every level, the requests that",
    "learn the tenants' data, the preflight, retries and key minting — is held to these invariants",
    '(`conformance/judging/run-checker.ts`). An answer that holds a tenant’s data where an invariant forbids it fails',
    'the MUST below, with that exchange as evidence and the rule that sent it named, whichever rule sent it. The',
    'first row that fits a request names the rule; an exchange that is already the evidence of a failed MUST is',
    'that failure. A credential of a form the spec leaves to HTTP (a tab, extra parameters, the key twice) is left',
    'to its own rule.',
    '',
    ...Object.entries(RUN_INVARIANTS).map(([id, statement]) => `- **${id}**: ${statement}`),
    '',
    '| Request whose answer holds the data | Invariant | MUST it fails |',
    '|---|---|---|',
    ...Object.values(BREACHES).map(
      (breach: Breach) => `| ${breach.request} | ${breach.invariant} | ${breach.rule} |`,
    ),
    '',
  ];
}
