// What a rule of the catalog is, as data: the types every declaration (specs/rules/) and every
// reader of the catalog share. Levels are those of docs/decisions.md: MUST (a sentence of the
// spec), HTTP (RFC 9110 / RFC 6750 where the spec is silent), ADVISORY (security practice).

export type Level = 'MUST' | 'HTTP' | 'ADVISORY';

/** The inputs of a target a rule needs; a rule whose inputs are missing is not evaluated. */
export type Input =
  | 'otherTenantBaseUrl'
  | 'sandboxBaseUrl'
  | 'credentials.fullAccess'
  | 'credentials.readOnly'
  | 'credentials.noCustomersPermission'
  | 'credentials.revoked'
  | 'credentials.sandbox'
  | 'credentials.otherTenant'
  | 'credentials.probe';

export interface Rule {
  id: string;
  level: Level;
  /** Where in the spec (or which standard) the rule comes from. */
  source: string;
  statement: string;
  needs: readonly Input[];
  /**
   * A rule of HTTP/2's own: checked over HTTP/2 whenever the target offers it, and holding when it
   * does not (no HTTP/2 request can reach it). Its verdict is HTTP/2's alone in a run over both.
   */
  http2Only?: true;
}
