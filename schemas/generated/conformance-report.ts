/* Generated from schemas/conformance-report.schema.json by scripts/generate-types.ts. Do not edit: change the schema and run `npm run generate`. */

/**
 * For each declared HTTPS base URL the preflight reached: the certificate the target presented and the protocol agreed.
 */
export type Tls = TlsEvidence[];
/**
 * SETUP ERROR: the preflight could not reach the base URL under test (or the target file names a CA file that is not usable), so no rule ran: nothing is known about the target. NOT CONFORMANT: a MUST rule failed (or, under strict, an HTTP rule). INCOMPLETE: none failed, but a MUST rule was not evaluated, or a rule of any level could not run. CONFORMANT: otherwise.
 */
export type OverallVerdict = 'CONFORMANT' | 'NOT CONFORMANT' | 'INCOMPLETE' | 'SETUP ERROR';
/**
 * warning: the rule failed but its level does not fail the run under this profile. error: the check itself could not run (network failure, defect), so nothing is known. not-applicable: the rule needs a protocol the target does not offer (an HTTP/2 rule on a port without HTTP/2): it could not be exercised and cannot be broken there; it is no pass and leaves the verdict as it is.
 */
export type RuleVerdict = 'pass' | 'fail' | 'warning' | 'not-evaluated' | 'not-applicable' | 'error';

/**
 * The result of one conformance run: one verdict per rule of the catalog and one overall verdict. Holds no key value.
 */
export interface ConformanceReport {
  suite: Suite;
  catalog?: Catalog;
  options?: Options;
  tls?: Tls;
  /**
   * What the run could reach of the deployment: the client address(es) its connections came from, its requests by connection kind (protocol, and what the connection offered by ALPN), the distinct backends its answers revealed (a header naming the server that differed between answers), and what the run could not reach.
   */
  reach?: {
    /**
     * The local addresses the preflight's TLS connections to the declared hosts came from.
     */
    clientAddresses: string[];
    /**
     * The run's requests by the kind of connection they went over.
     */
    connections: {
      kind:
        'HTTP/1.1, no ALPN offered' | 'HTTP/1.1, ALPN http/1.1 offered' | 'HTTP/2, ALPN h2' | 'plain HTTP';
      requests: number;
    }[];
    /**
     * Each answer header naming a server (X-Served-By, Server, Via, …) whose value differed between answers: more than one backend answered.
     */
    backends?: {
      field: string;
      values: string[];
    }[];
    /**
     * The rules grouped by the connection kinds their requests went over: the isolation and authentication MUSTs over HTTP/1.1 connections with and without an ALPN offer, the HTTP and ADVISORY rules over connections without one (and each over HTTP/2 where the run spoke it).
     */
    checkedOver?: {
      kinds: (
        'HTTP/1.1, no ALPN offered' | 'HTTP/1.1, ALPN http/1.1 offered' | 'HTTP/2, ALPN h2' | 'plain HTTP'
      )[];
      rules: string[];
    }[];
    /**
     * What the run could not reach, one sentence each.
     */
    limits: string[];
  };
  spec: {
    file: string;
    sha256: string;
  };
  target: Target;
  profile: 'default' | 'strict';
  /**
   * Set when this report covers one shard of a run, e.g. 1/3.
   */
  shard?: string;
  scope?: Scope;
  /**
   * A merged run: each shard's own record (target, kit, catalog, options, certificates), as its reporter wrote it. verify refuses a merge whose shards disagree on target, kit or catalog.
   */
  shards?: {
    shard: string;
    target: Target;
    suite: Suite;
    catalog?: Catalog;
    options?: Options;
    tls?: Tls;
    scope?: Scope;
    startedAt: string;
    /**
     * What the shard's own results show, written by the merge from its blob (never from the record beside it): the origins its rules' exchanges went to, and the certificate of each host its set-up project's preflight saw. verify refuses a merge where these disagree with the record or between shards.
     */
    seen?: {
      origins: string[];
      tls: {
        host: string;
        fingerprint256: string;
      }[];
    };
  }[];
  startedAt: string;
  durationMs: number;
  verdict: OverallVerdict;
  summary: {
    pass: number;
    fail: number;
    warning: number;
    notEvaluated: number;
    /**
     * Rules that need a protocol the target does not offer.
     */
    notApplicable?: number;
    error: number;
  };
  /**
   * What the target's fronts answered and how the run paced itself; absent when no answer was transient and no --max-rps was set.
   */
  traffic?: {
    /**
     * Answers 429 the run met.
     */
    rateLimited: number;
    /**
     * Answers 502, 503 or 504 the run met.
     */
    unavailable: number;
    /**
     * Requests sent again after a transient answer.
     */
    retries: number;
    /**
     * Requests a front left unanswered with a transient signal, by signal (RST_STREAM REFUSED_STREAM, GOAWAY NO_ERROR, RST_STREAM ENHANCE_YOUR_CALM, GOAWAY ENHANCE_YOUR_CALM, connection closed before the answer); absent when none.
     */
    signals?: {
      [k: string]: number;
    };
    /**
     * Time spent waiting before retries (bounded by --retry-budget).
     */
    waitedSeconds?: number;
    /**
     * The rate the run paced itself to at its end (after a 429, or --max-rps).
     */
    pacedRequestsPerSecond?: number;
  };
  /**
   * The run's verdict over each protocol, when it checked the rules over more than one (its verdict is over all of them), and each protocol the target's ALPN showed it does not offer (offered: false, no verdict).
   */
  protocols?: {
    name: string;
    verdict?: OverallVerdict;
    /**
     * false: the target does not offer this protocol (ALPN), so no rule was checked over it.
     */
    offered?: boolean;
  }[];
  /**
   * Every rule of the catalog; empty when the verdict is SETUP ERROR.
   */
  rules: RuleResult[];
  /**
   * What the preflight found: for SETUP ERROR why the run could not start; otherwise the declared URLs that could not be reached, whose rules are not evaluated.
   */
  setupProblems?: SetupProblem[];
}
export interface Suite {
  name: string;
  version: string;
  /**
   * The kit's source commit, when it ran from a clone of its repository.
   */
  commit?: string;
  /**
   * True when the clone had changes to tracked files: the kit that ran is not exactly that commit.
   */
  sourceModified?: boolean;
}
/**
 * The rule catalog as run: the SHA-256 of the JSON array of every rule's id, level and statement, in catalog order (conformance/attestation/catalog-digest.ts).
 */
export interface Catalog {
  sha256: string;
  rules: number;
}
/**
 * Every setting of the run, besides the profile, that can change a verdict or the exit code.
 */
export interface Options {
  failOnIncomplete: boolean;
  requestTimeoutSeconds: number;
  /**
   * Playwright's retries of a failed test.
   */
  retries?: number;
  repeatEach?: number;
  /**
   * --max-retries: how often one request was sent again after a transient answer, at most.
   */
  maxRetries?: number;
  /**
   * --retry-budget: the most the run waited before retries.
   */
  retryBudgetSeconds?: number;
  /**
   * --max-rps, when set.
   */
  maxRequestsPerSecond?: number;
  /**
   * --max-list-pages: pages of one tenant's list the run followed, at most (a leak on a later page is not seen).
   */
  maxListPages?: number;
  /**
   * --max-list-records: records of one tenant's list after which the run followed no more pages.
   */
  maxListRecords?: number;
  /**
   * How many rules of the catalog the run selected (--grep, --shard); the others are not evaluated.
   */
  selectedRules: number;
}
/**
 * The leaf certificate of one host, from the preflight's verified TLS handshake.
 */
export interface TlsEvidence {
  field: 'baseUrl' | 'otherTenantBaseUrl' | 'sandboxBaseUrl';
  /**
   * host:port
   */
  host: string;
  /**
   * The local address the handshake's connection came from: the client address the deployment saw.
   */
  clientAddress?: string;
  /**
   * SHA-256 of the certificate's DER, as openssl x509 -fingerprint -sha256 prints it.
   */
  fingerprint256: string;
  subject: string;
  issuer: string;
  validFrom: string;
  validTo: string;
  /**
   * The protocols the host agrees to by ALPN when offered each, probed apart from the handshake above: HTTP/1.1, and HTTP/2 when it picks h2.
   */
  protocols?: string[];
  /**
   * What the preflight offered by ALPN and the server agreed: http/1.1 alone when the run speaks HTTP/1.1 (so that the server confirms that protocol without being asked for another: h2 could reach a different stack), h2 alone for a run over HTTP/2 alone (an h2-only port).
   */
  alpn: {
    offered: string[];
    /**
     * null: the server agreed no protocol by ALPN.
     */
    agreed: string | null;
  };
}
export interface Target {
  name: string;
  mode: 'embedded' | 'file';
  baseUrl: string;
  /**
   * Where the plain-HTTP rules (TRANSPORT-PLAIN-HTTP-*) sent their probes, as the run used it: the target file's plainHttpBaseUrl, or its default (the base URL's host over http://, port 80). verify shows it beside the base URL and warns when it is not that default. Absent in reports of kits before it was recorded.
   */
  plainHttpBaseUrl?: string;
  /**
   * The CA file the run trusted besides the system's (absolute path), for curl --cacert.
   */
  caFile?: string;
  /**
   * Host patterns mapped to addresses (the target file's hosts), for curl --resolve.
   */
  hosts?: {
    [k: string]: string;
  };
  /**
   * Every source of trust the run's processes took from their environment besides Node's bundled CAs, one sentence each: NODE_EXTRA_CA_CERTS, --use-openssl-ca or --use-system-ca (in NODE_OPTIONS or Node's own options), SSL_CERT_FILE, SSL_CERT_DIR and NODE_OPTIONS itself. verify names each. Absent: none.
   */
  trust?: string[];
  /**
   * The credentials the kit minted itself through the target's keyMinting (fullAccess, revoked, …): the revoked one it saw served, then revoked. Absent: none.
   */
  keysMinted?: string[];
}
/**
 * What the run covered: the protocols it checked the rules over against those the target offers, the rules it selected, the lists it followed to their end, and every setting that can change a verdict. A run that left out an offered protocol, some rules or part of a list is partial, and every report, the badge and verify say so.
 */
export interface Scope {
  /**
   * The protocols every selected rule was checked over (HTTP/1.1, HTTP/2).
   */
  protocolsChecked: string[];
  /**
   * Every protocol some declared host agrees to by ALPN (each host's in tls[].protocols); HTTP/1.1 for a plain-HTTP target.
   */
  protocolsOffered: string[];
  /**
   * For an offered protocol checked for some of the selected rules but not all (shards of one protocol each): how many. Absent when every protocol was checked for all of them or for none.
   */
  rulesChecked?: {
    [k: string]: number;
  };
  rulesSelected: number;
  rulesInCatalog: number;
  /**
   * Lists of a tenant's data not followed to their end: a bound (--max-list-pages, --max-list-records) stopped them while a next page existed, so records past it were not checked. One sentence each; the run is partial.
   */
  listsCut?: string[];
  /**
   * What the run took on the word of the vendor who ran it, one line per input of docs/certification.md's inputs table that rests on it (conformance/report/vendor-inputs.ts): the revoked key among them unless the kit minted it. verify prints each. Absent for the embedded reference, whose every input the kit chose.
   */
  vendorsWord?: string[];
  /**
   * Every setting of the run that can change a verdict, whatever its value: a registry or a reader compares certificates by them. Playwright's retries are also shown beside the verdict when not 0.
   */
  settings?: {
    /**
     * Playwright's --retries: how often a rule's failed test was run again.
     */
    retries: number;
    /**
     * Playwright's --repeat-each: how often each rule's test was run.
     */
    repeatEach: number;
    /**
     * --max-retries: how often one request was sent again after a transient answer (429, 502, 503, 504).
     */
    maxRetries: number;
    /**
     * --retry-budget: the most the whole run waited before retries.
     */
    retryBudgetSeconds: number;
    /**
     * --request-timeout: the longest one exchange could take.
     */
    requestTimeoutSeconds: number;
    /**
     * --max-rps, when given.
     */
    maxRequestsPerSecond?: number;
    /**
     * --max-list-pages: pages of one tenant's list followed, at most.
     */
    maxListPages: number;
    /**
     * --max-list-records: records of one tenant's list after which no further page was asked for.
     */
    maxListRecords: number;
    /**
     * Playwright's --max-failures, when given: the run stopped after that many failed tests (the rules not run are not evaluated).
     */
    maxFailures?: number;
  };
  /**
   * --grep, when the run selected rules by it.
   */
  grep?: string;
  /**
   * --grep-invert, when given.
   */
  grepInvert?: string;
  /**
   * The shards this report covers: one for a shard's own report, every shard merged for a merged run.
   */
  shards?: string[];
  /**
   * Why the run is partial, one sentence each; empty when it covered every rule over every protocol the target offers.
   */
  partial: string[];
}
export interface RuleResult {
  id: string;
  level: 'MUST' | 'HTTP' | 'ADVISORY';
  source: string;
  statement: string;
  verdict: RuleVerdict;
  /**
   * Why it failed, warned, errored or was not evaluated (redacted).
   */
  message?: string;
  evidence?: Evidence[];
  /**
   * Requests of this rule sent again after a transient answer (absent: none).
   */
  retries?: number;
  /**
   * The rule's verdict over each protocol the run checked it over (HTTP/1.1, HTTP/2), when more than one; its verdict is over all of them.
   */
  protocols?: {
    [k: string]: RuleVerdict;
  };
}
export interface Evidence {
  method: string;
  url: string;
  note?: string;
  /**
   * The request's headers as sent, in order; a key is shown as its environment variable ($NAME) or a shell expression of it.
   */
  requestHeaders?: {
    name: string;
    value: string;
  }[];
  requestBody?: string;
  status?: number;
  errorCode?: string;
  headers?: {
    [k: string]: string;
  };
  bodyExcerpt?: string;
  failure?: string;
  /**
   * The id (_id) of this exchange's entry in exchanges.har.
   */
  exchange?: string;
  /**
   * The HTTP version the request was sent over, when not HTTP/1.1.
   */
  protocol?: string;
  /**
   * Earlier tries of the same request whose answers were transient (429, 502, 503, 504, or a signal without an answer: a refused HTTP/2 stream, a graceful GOAWAY, ENHANCE_YOUR_CALM, a keep-alive connection closed before the answer) and not judged, oldest first; each is an entry of exchanges.har.
   */
  attempts?: {
    exchange: string;
    /**
     * The transient status; absent for a signal.
     */
    status?: number;
    /**
     * The signal without an answer, e.g. RST_STREAM REFUSED_STREAM, GOAWAY NO_ERROR.
     */
    signal?: string;
    /**
     * How long the suite waited before sending the request again.
     */
    retriedAfterMs: number;
  }[];
}
/**
 * A stage of the preflight that failed for one declared URL (or for the target file's CA file).
 */
export interface SetupProblem {
  url: string;
  field?: 'baseUrl' | 'otherTenantBaseUrl' | 'sandboxBaseUrl';
  stage: 'target file' | 'resolve' | 'connect' | 'TLS' | 'HTTP';
  problem: string;
  fix: string;
}
