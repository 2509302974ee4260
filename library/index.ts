// The package's main entry point (`import … from 'tenant-auth-conformance'`): the reference server
// in-process, the rule catalogs, the report types and bundle verification. The Playwright side is
// `tenant-auth-conformance/playwright` (library/playwright.ts), so that this one loads no
// Playwright, and what a client's test file needs first (the mock) is all it loads at import: the
// rest (undici, the client report, bundle verification) loads when first used (bench/import-cost.ts).
// Nothing else of the package can be imported: package.json's `exports` lists these
// two, and library/*.api.md records their surface (npm run api-report).
import { RULES as RULE_CATALOG } from '../conformance/catalog/rules.ts';
// The types from the module that declares them alone: the catalog's declarations name each rule's
// check, whose types reach Playwright's, and a project importing this entry loads no Playwright types.
import type { Rule } from '../conformance/catalog/rule.ts';
import { CLIENT_RULES as CLIENT_RULE_CATALOG, type ClientRule } from '../conformance/catalog/client-rules.ts';

export {
  startReferenceMock,
  type ReferenceMock,
  type ReferenceMockOptions,
  type MockDispatcher,
  type TenantUrls,
  type MockKey,
  type MintKeyRequest,
  type JournalWindow,
  type Environment,
  type KeyAccess,
  type Permission,
} from './mock.ts';
export {
  errorAnswer,
  rateLimited,
  unavailable,
  slowAnswer,
  connectionReset,
  goAway,
  resetStream,
  revokeKeyAfter,
  rotateKeyAfter,
  type Behaviour,
  type BehaviourMatch,
  type BehaviourState,
  type ErrorOptions,
  type ErrorBehaviour,
  type DelayBehaviour,
  type CutBehaviour,
  type KeyBehaviour,
} from './behaviours.ts';
export {
  expectRequests,
  journalMatchers,
  selectRequests,
  type RequestQuery,
  type RequestTraits,
  type Absence,
  type RequestSource,
  type RequestExpectation,
  type MatcherResult,
  type JournalMatchers,
} from './requests.ts';
export type { Rule, Level, Input } from '../conformance/catalog/rule.ts';
export type { ClientRule, ClientLevel } from '../conformance/catalog/client-rules.ts';
export type { ConformanceReport } from '../schemas/generated/conformance-report.ts';
export type { ClientReport } from '../schemas/generated/client-report.ts';
export type { Journal, JournalEntry } from '../schemas/generated/journal.ts';
export { verifyBundle } from './verify.ts';
export { BundleInputError } from '../conformance/attestation/bundle-input-error.ts';
export type {
  Verification,
  VerifyOptions,
  SignatureCheck,
} from '../conformance/attestation/verify-bundle.ts';

/** Every rule the suite checks of a deployment: id, level, source, statement, the inputs it needs. */
export const RULES: readonly Rule[] = RULE_CATALOG;
/** Every rule the client report checks of a client. */
export const CLIENT_RULES: readonly ClientRule[] = CLIENT_RULE_CATALOG;

/** A rule of either catalog by its id, or undefined. */
export function ruleById(id: string): Rule | ClientRule | undefined {
  return RULES.find((rule) => rule.id === id) ?? CLIENT_RULES.find((rule) => rule.id === id);
}
