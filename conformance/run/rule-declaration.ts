// A rule, declared once: its catalog entry (id, level, source, statement, needs, http2Only), what
// its verdict reads and its check, in one object. The declarations are in specs/rules/, one module
// per group; conformance/catalog/rules.ts assembles them into the catalog (metadata only), each
// specs/*.spec.ts registers its group's as Playwright tests (conformance/run/conformance-rule.ts),
// and the mutation layer reads `reads` (mutation/knock-on.ts). A declaration module imports no
// Playwright: the catalog, which every report and the package's entry point read, loads them all.
import type { Rule } from '../catalog/rule.ts';
import type { RuleContext } from './rule-context.ts';

/**
 * Which answers of the target a rule's verdict reads:
 * - `tls`: the TLS handshake, the certificate;
 * - `plain-http`: the plain-HTTP listener's answers;
 * - `host-check`: the answers of the host checks (which tenant, which connection), before
 *   authentication;
 * - `authenticated-path`: the spec's own answer (its status, error code or data) to a request that
 *   got past the host checks: authentication, permission and the resource;
 * - `refusal`: only that a request is refused without data: any refusal passes;
 * - `any-answer`: a header field or the body's shape of whatever is answered;
 * - `tenant-comparison`: a comparison with the tenants' data or with a baseline answer; without
 *   data, not evaluated.
 */
export const READINGS = [
  'tls',
  'plain-http',
  'host-check',
  'authenticated-path',
  'refusal',
  'any-answer',
  'tenant-comparison',
] as const;

export type Reading = (typeof READINGS)[number];

export interface RuleDeclaration<Id extends string = string> extends Rule {
  readonly id: Id;
  /**
   * Which answers of the target the verdict reads: a fault that changes a whole kind of answer
   * (`knockOn` in mutation/) is expected to fail every rule that reads it, without naming it.
   */
  readonly reads: Reading;
  /**
   * Set when the reference server, correct as it is, leaves the rule not applicable (it offers
   * nothing the rule could check): a phrase of the reason the clean run gives. The mutation
   * campaign expects exactly that on the clean server, and such a rule may have no fault of its own.
   */
  readonly notApplicableOnReference?: string;
  /**
   * The check: passes by returning, fails by a `ConformanceFailure` (conformance/judging/checks.ts),
   * ends as not applicable or not evaluated by `notApplicable`/`notEvaluated` (rule-end.ts).
   */
  readonly check: (context: RuleContext) => Promise<void>;
}

/**
 * Declares a rule. The `const` type parameter keeps its id a literal, so that the catalog's
 * `RuleId` stays the union of the declared ids and a fault's `catches` is checked against it.
 */
export function defineRule<const Id extends string>(declaration: RuleDeclaration<Id>): RuleDeclaration<Id> {
  return declaration;
}
