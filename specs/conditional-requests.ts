// The conditional forms of a rejection probe: a client that stored an answer sends its validators
// back (If-None-Match with the ETag, If-Modified-Since with the Last-Modified), and a front or an
// app that evaluates them before authentication answers 304 — handing the client its stored copy
// of the data without a valid key (conformance/judging/answer-data.ts `confirmedCopy`). The
// validators are those the tenants' first pages were served with (conformance/judging/knowledge.ts).
import type { Knowledge } from '../conformance/judging/knowledge.ts';

export interface ConditionalProbe {
  /** How the request is conditional, for its record and the failure's message. */
  note: string;
  headers: Record<string, string>;
}

/**
 * One request per distinct ETag the tenants were served (the tenant under test's, the other
 * tenant's: a validator every tenant shares matches on any host), each alone in If-None-Match as a
 * client sends it back, and one with If-Modified-Since: the Last-Modified served, else now (a list
 * not changed since now is one a pre-authentication check would call not modified).
 */
export function conditionalProbes(knowledge: Knowledge, now: Date = new Date()): ConditionalProbe[] {
  const { own, other } = knowledge.validators ?? {};
  const probes: ConditionalProbe[] = [];
  if (own?.etag !== undefined)
    probes.push({
      note: `If-None-Match with the ETag the tenant under test was served${other?.etag === own.etag ? ', which the other tenant was served too' : ''}`,
      headers: { 'If-None-Match': own.etag },
    });
  if (other?.etag !== undefined && other.etag !== own?.etag)
    probes.push({
      note: 'If-None-Match with the ETag the other tenant was served',
      headers: { 'If-None-Match': other.etag },
    });
  const lastModified = own?.lastModified ?? other?.lastModified;
  probes.push({
    note: `If-Modified-Since ${lastModified !== undefined ? 'the Last-Modified the tenant was served' : 'now'}`,
    headers: { 'If-Modified-Since': lastModified ?? now.toUTCString() },
  });
  return probes;
}
