/* Generated from schemas/verdict-statement.schema.json by scripts/generate-types.ts. Do not edit: change the schema and run `npm run generate`. */

/**
 * For each declared HTTPS base URL the preflight reached: the certificate the target presented and the protocol agreed.
 */
export type Tls = TlsEvidence[];
/**
 * A merged run: each shard's own record (target, kit, catalog, options, certificates), as its reporter wrote it. verify refuses a merge whose shards disagree on target, kit or catalog.
 */
export type Shards = {
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
/**
 * The run's verdict over each protocol, when it checked the rules over more than one (its verdict is over all of them), and each protocol the target's ALPN showed it does not offer (offered: false, no verdict).
 */
export type Protocols = {
  name: string;
  /**
   * SETUP ERROR: the preflight could not reach the base URL under test (or the target file names a CA file that is not usable), so no rule ran: nothing is known about the target. NOT CONFORMANT: a MUST rule failed (or, under strict, an HTTP rule). INCOMPLETE: none failed, but a MUST rule was not evaluated, or a rule of any level could not run. CONFORMANT: otherwise.
   */
  verdict?: 'CONFORMANT' | 'NOT CONFORMANT' | 'INCOMPLETE' | 'SETUP ERROR';
  /**
   * false: the target does not offer this protocol (ALPN), so no rule was checked over it.
   */
  offered?: boolean;
}[];

/**
 * A run's certificate: an in-toto Statement v1 whose subjects are the bundle's reports and badge, and whose predicate (type urn:tenant-auth-conformance:verdict:v2) repeats what conformance.json says was tested and what came of it. verify validates statement.json against this schema before reading it.
 */
export interface VerdictStatement {
  _type: 'https://in-toto.io/Statement/v1';
  /**
   * @minItems 1
   */
  subject: [
    {
      name: string;
      digest: {
        sha256: string;
      };
    },
    ...{
      name: string;
      digest: {
        sha256: string;
      };
    }[],
  ];
  predicateType: 'urn:tenant-auth-conformance:verdict:v2';
  /**
   * The fields of conformance.json that say what was tested and what came of it; verify checks each against the report.
   */
  predicate: {
    /**
     * SETUP ERROR: the preflight could not reach the base URL under test (or the target file names a CA file that is not usable), so no rule ran: nothing is known about the target. NOT CONFORMANT: a MUST rule failed (or, under strict, an HTTP rule). INCOMPLETE: none failed, but a MUST rule was not evaluated, or a rule of any level could not run. CONFORMANT: otherwise.
     */
    verdict: 'CONFORMANT' | 'NOT CONFORMANT' | 'INCOMPLETE' | 'SETUP ERROR';
    summary: Summary;
    suite: Suite;
    spec: Spec;
    catalog?: Catalog;
    target: Target;
    profile: 'default' | 'strict';
    options?: Options;
    tls?: Tls;
    reach?: Reach;
    /**
     * Set when this report covers one shard of a run, e.g. 1/3.
     */
    shard?: string;
    scope: Scope;
    shards?: Shards;
    protocols?: Protocols;
    startedAt: string;
    durationMs: number;
  };
}
export interface Summary {
  pass: number;
  fail: number;
  warning: number;
  notEvaluated: number;
  /**
   * Rules that need a protocol the target does not offer.
   */
  notApplicable?: number;
  error: number;
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
export interface Spec {
  file: string;
  sha256: string;
}
/**
 * The rule catalog as run: the SHA-256 of the JSON array of every rule's id, level and statement, in catalog order (conformance/attestation/catalog-digest.ts).
 */
export interface Catalog {
  sha256: string;
  rules: number;
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
/**
 * What the run could reach of the deployment: the client address(es) its connections came from, its requests by connection kind (protocol, and what the connection offered by ALPN), the distinct backends its answers revealed (a header naming the server that differed between answers), and what the run could not reach.
 */
export interface Reach {
  /**
   * The local addresses the preflight's TLS connections to the declared hosts came from.
   */
  clientAddresses: string[];
  /**
   * The run's requests by the kind of connection they went over.
   */
  connections: {
    kind: 'HTTP/1.1, no ALPN offered' | 'HTTP/1.1, ALPN http/1.1 offered' | 'HTTP/2, ALPN h2' | 'plain HTTP';
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
