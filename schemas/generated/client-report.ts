/* Generated from schemas/client-report.schema.json by scripts/generate-types.ts. Do not edit: change the schema and run `npm run generate`. */

/**
 * CLIENT NOT CONFORMANT: a client broke a MUST rule. ADVISORY rules only warn.
 */
export type ClientVerdict = 'CLIENT CONFORMANT' | 'CLIENT NOT CONFORMANT';

/**
 * The client report: what the reference server's journal recorded of each client (a key id with a user agent) in a window, judged by the client rule catalog. Holds no key value.
 */
export interface ClientReport {
  suite: {
    name: string;
    version: string;
  };
  /**
   * The admin API the journal was read from.
   */
  server: string;
  window: {
    tenant?: string;
    keyId?: string;
    since?: string;
    until?: string;
  };
  generatedAt: string;
  verdict: ClientVerdict;
  journal: {
    /**
     * Entries judged.
     */
    entries: number;
    /**
     * Older entries the server dropped from the journals read: when not 0, the window may miss requests.
     */
    dropped: number;
  };
  summary: {
    clients: number;
    conformant: number;
    notConformant: number;
    exposedKeys: number;
  };
  exposedKeys: ExposedKey[];
  clients: ClientResult[];
}
export interface ExposedKey {
  key: string;
  keyFingerprint?: string;
  tenant?: string;
  severity: 'critical';
  advice: string;
}
export interface ClientResult {
  /**
   * The key id, "unknown key" or "no key".
   */
  key: string;
  /**
   * For an unknown key: its fingerprint in the journal, which tells two unknown keys apart without showing either.
   */
  keyFingerprint?: string;
  userAgent: string;
  /**
   * The HTTP version of this client's requests: h1 for HTTP/1.x, h2 for HTTP/2. One library over both is two clients. Absent for TLS connections that carried no request.
   */
  protocol?: 'h1' | 'h2';
  tenants: string[];
  requests: number;
  firstSeen: string;
  lastSeen: string;
  verdict: ClientVerdict;
  /**
   * Set when this client sent its key over plain HTTP.
   */
  exposed?: 'critical';
  rules: ClientRuleResult[];
}
export interface ClientRuleResult {
  id: string;
  level: 'MUST' | 'ADVISORY';
  source: string;
  statement: string;
  /**
   * warning: an ADVISORY rule was broken. not-evaluated: no request of this client could show it (e.g. no request with a body).
   */
  verdict: 'pass' | 'fail' | 'warning' | 'not-evaluated';
  violations: number;
  message?: string;
  /**
   * Up to three of the requests that broke the rule.
   */
  evidence?: ClientEvidence[];
}
export interface ClientEvidence {
  time: string;
  transport: 'https' | 'http' | 'tls';
  method?: string;
  path?: string;
  status?: number;
  errorCode?: string;
  detail: string;
}
