// The failure the tests use when they need a rule that fails: the reference server with the
// fault that strips the quotes from a quoted key, which fails exactly one rule of the catalog
// (mutation/faults/ says so, and the mutation test holds it). Tests of the reports that need a
// failed rule in-process (sample-run.ts) fail the same one, so that every report test reads the
// same failure.

/** A fault of mutation/faults/ that makes one rule fail. */
export const SAMPLE_FAULT = 'quotes-stripped';
/** The one rule SAMPLE_FAULT fails. */
export const SAMPLE_FAILING_RULE = 'AUTH-QUOTED-KEY-REJECTED';
