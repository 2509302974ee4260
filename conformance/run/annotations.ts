// The annotation and attachment names through which a rule's test tells the reporter what
// happened (conformance/run/test.ts writes them, conformance/run/reporter.ts reads them).
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
  /** Attachment: the redacted message and evidence of a ConformanceFailure. */
  evidence: 'evidence',
  /** Attachment: the test's exchanges (RecordedExchange[], keys shown as variables), for exchanges.har. */
  exchanges: 'exchanges',
  /** Attachment: the exchanges by which the worker learned the tenants' data, on its first test. */
  learningExchanges: 'learning-exchanges',
} as const;
