// The annotation and attachment names through which a rule's test tells the reporter what
// happened (conformance/run/conformance-rule.ts writes them, conformance/run/reporter.ts reads them).
export const ANNOTATION = {
  rule: 'rule',
  level: 'level',
  /** Where in the spec (or which standard) the rule comes from. */
  source: 'source',
  notEvaluated: 'not-evaluated',
  notApplicable: 'not-applicable',
  /**
   * Why the rule was not run at all: the target had stopped answering (requests/answer-watch.ts).
   * Its verdict is ERROR, though its test is skipped rather than failed.
   */
  notSent: 'not-sent',
  warning: 'warning',
  /**
   * The protocol the rule's test spoke over TLS (HTTP/1.1, HTTP/2), set as it starts: what a run
   * or a merge counts as checked is what the tests say they ran over, not a config's names.
   */
  protocol: 'protocol',
  /** The shard the test ran in (`2/3`), when the run was sharded: a merge groups evidence by it. */
  shard: 'shard',
  /**
   * A list of a tenant's data not followed to its end (a bound stopped it while a next page
   * existed), one annotation per list, said as a sentence: the run is partial.
   */
  listCut: 'list-cut',
  /** Attachment: the redacted message and evidence of a ConformanceFailure. */
  evidence: 'evidence',
  /** Attachment: the test's exchanges (RecordedExchange[], keys shown as variables), for exchanges.har. */
  exchanges: 'exchanges',
  /**
   * Attachment: the exchanges by which the tenants' data were learned — by the set-up project's
   * test, once for the run (setup-learning.ts); by a worker's first test where no set-up project
   * learned them (the mutation campaign's batch).
   */
  learningExchanges: 'learning-exchanges',
  /**
   * Attachment, on the test that learned (the set-up project's, or a worker's first without one):
   * the tenants' distinctive values as learned ({ own?, other? }, each { label, values }), which the
   * run's checker searches every answer for.
   */
  tenantValues: 'tenant-values',
  /**
   * Attachment of the set-up project's test: the run's declared hosts and key variables (no key
   * value), which the run's checker judges by — in a merge too, whose blobs keep no project option.
   */
  runTarget: 'run-target',
  /** Attachment of the set-up project's test: the preflight's certificates and protocols (TlsEvidence[]). */
  preflightTls: 'preflight-tls',
  /** Attachment of the set-up project's test: the preflight's keyless requests (RecordedExchange[]), for exchanges.har. */
  preflightExchanges: 'preflight-exchanges',
} as const;
