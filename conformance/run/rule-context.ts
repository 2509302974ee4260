// What a rule's check is given (its declaration's `check`, conformance/run/rule-declaration.ts):
// the clients, the assertions and the target, each input read through a function that checks the
// rule declared it in its needs. Built for each rule by conformance/run/conformance-rule.ts.
import type { Api } from '../requests/api-client.ts';
import type { RawClient } from '../requests/raw-client.ts';
import type { RunSettings } from '../settings.ts';
import type { Checks } from '../judging/checks.ts';
import type { Knowledge } from '../judging/knowledge.ts';
import type { CredentialName, ResolvedTarget } from '../deployment/target.ts';

export interface RuleContext {
  api: Api;
  raw: RawClient;
  check: Checks;
  target: ResolvedTarget;
  knowledge: Knowledge;
  /** The run's settings (conformance/settings.ts): its time-out, its protocols, … */
  settings: Readonly<RunSettings>;
  /** The value of a credential the rule declared in `needs`. */
  credential: (name: CredentialName) => string;
  /** `Bearer <that credential>`: the Authorization value of a well-formed request. */
  bearer: (name: CredentialName) => string;
  /** `{base_url}/customers` of the tenant under test, or of another declared base URL. */
  customersUrl: (base?: 'otherTenantBaseUrl' | 'sandboxBaseUrl') => string;
  /** The other tenant's base URL; reading it without declaring the input is a defect. */
  readonly otherTenant: { baseUrl: string };
  /**
   * For a rule of HTTP/2's own (`http2Only` in its declaration): the raw client over HTTP/2 when the
   * target agrees to it by ALPN, whatever protocol the run's other rules speak. When it does not,
   * the rule ends as "not applicable" (no HTTP/2 request can reach it: never a pass). In a run
   * with an HTTP/2 project, the HTTP/1.1 project leaves the rule to that one (not evaluated there).
   */
  readonly overHttp2: () => Promise<RawClient>;
}
