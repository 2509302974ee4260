// The rule catalog: every rule the suite checks, as data, assembled from the rules' declarations
// (specs/rules/, one module per group, each rule with its check: conformance/run/rule-declaration.ts)
// in the order of the published catalog. An id never changes meaning once published
// (tests/conformance/catalog/rule-ids.snapshot.json holds the list); the wording may improve.
// What the catalog exposes is each rule's metadata alone (`Rule`), as every report, the docs and
// the package's entry point read it; the declarations import no Playwright, so it stays light.
import type { Rule } from './rule.ts';
import { TRANSPORT_RULES } from '../../specs/rules/transport.ts';
import { AUTHORIZATION_HEADER_RULES } from '../../specs/rules/authorization-header.ts';
import { KEYS_RULES } from '../../specs/rules/keys.ts';
import { TENANT_ISOLATION_RULES } from '../../specs/rules/tenant-isolation.ts';
import { ENVIRONMENTS_RULES } from '../../specs/rules/environments.ts';
import { PERMISSIONS_RULES } from '../../specs/rules/permissions.ts';
import { ERRORS_AND_VERSIONING_RULES } from '../../specs/rules/errors-and-versioning.ts';

export type { Level, Input, Rule } from './rule.ts';

/** Every rule's declaration, its check included, in catalog order. */
export const RULE_DECLARATIONS = [
  ...TRANSPORT_RULES,
  ...AUTHORIZATION_HEADER_RULES,
  ...KEYS_RULES,
  ...TENANT_ISOLATION_RULES,
  ...ENVIRONMENTS_RULES,
  ...PERMISSIONS_RULES,
  ...ERRORS_AND_VERSIONING_RULES,
];

export type RuleId = (typeof RULE_DECLARATIONS)[number]['id'];

/** A rule of this catalog: its id is one of the declared ones. */
export interface CatalogRule extends Rule {
  id: RuleId;
}

/**
 * A declaration's catalog entry: its metadata alone, with the fields in the published order (the
 * `rules --json` output and the catalog's digest read them as they are).
 */
function entryOf({ id, level, source, statement, needs, http2Only }: CatalogRule): CatalogRule {
  return { id, level, source, statement, needs, ...(http2Only ? { http2Only } : {}) };
}

export const RULES: readonly CatalogRule[] = RULE_DECLARATIONS.map(entryOf);

const RULES_BY_ID: ReadonlyMap<string, CatalogRule> = new Map(RULES.map((rule) => [rule.id, rule]));

export function ruleById(id: RuleId): Rule {
  const rule = RULES_BY_ID.get(id);
  if (!rule) throw new Error(`No rule ${id} in the catalog.`);
  return rule;
}
