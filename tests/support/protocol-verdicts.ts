// What a run over both protocols a target offers by ALPN must show when the target is correct over
// each: the run's verdict per protocol, each rule's verdict per protocol, and requests that really
// went over HTTP/2 (exchanges.har), so that a pass is not that of a run over HTTP/1.1 alone.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RULES, ruleById, type RuleId } from '../../conformance/catalog/rules.ts';
import type { SuiteRun } from '../../mutation/suite-run.ts';
import { notApplicableByNature } from './not-applicable-by-nature.ts';

/** How many of the run's exchanges went over each HTTP version (exchanges.har). */
export function exchangeVersions(reportDir: string): Record<string, number> {
  const har = JSON.parse(readFileSync(join(reportDir, 'exchanges.har'), 'utf8')) as {
    log: { entries: { request: { httpVersion: string }; response: { httpVersion: string } }[] };
  };
  const counts: Record<string, number> = {};
  for (const { request, response } of har.log.entries) {
    counts[request.httpVersion] = (counts[request.httpVersion] ?? 0) + 1;
    if (response.httpVersion) assert.equal(response.httpVersion, request.httpVersion);
  }
  return counts;
}

/** Fewer requests over HTTP/2 than this, and the run did not check the catalog over it. */
const LEAST_HTTP2_EXCHANGES = 30;

/** A rule's expected verdict per protocol: the rules of HTTP/2's own are judged over HTTP/2 alone. */
export function overEach(ruleId: string, verdict: string): Record<string, string> {
  return ruleById(ruleId as RuleId).http2Only
    ? { 'HTTP/2': verdict }
    : { 'HTTP/1.1': verdict, 'HTTP/2': verdict };
}

/**
 * The run is CONFORMANT over HTTP/1.1 and over HTTP/2, and every rule of the catalog has the same
 * verdict over each protocol it is judged over, and over all: `warnings` warn, every other rule
 * passes (none is left not evaluated).
 */
export function assertConformantOverBothProtocols(run: SuiteRun, warnings: readonly string[] = []): void {
  assert.deepEqual(run.report?.protocols, [
    { name: 'HTTP/1.1', verdict: 'CONFORMANT' },
    { name: 'HTTP/2', verdict: 'CONFORMANT' },
  ]);
  const rules = run.report?.rules ?? [];
  assert.deepEqual(
    rules.map((rule) => rule.id).sort(),
    RULES.map((rule) => rule.id).sort(),
    'one verdict per rule of the catalog',
  );
  const unexpected = rules.flatMap((rule) => {
    const verdict = warnings.includes(rule.id)
      ? 'warning'
      : notApplicableByNature(rule)
        ? 'not-applicable'
        : 'pass';
    const expected = overEach(rule.id, verdict);
    return rule.verdict === verdict && JSON.stringify(rule.protocols) === JSON.stringify(expected)
      ? []
      : [
          `${rule.id}: ${rule.verdict} ${JSON.stringify(rule.protocols)}, expected ${verdict} over each — ${rule.message ?? ''}`,
        ];
  });
  assert.deepEqual(unexpected, [], 'rules with another verdict over a protocol than expected');
  const versions = exchangeVersions(run.reportDir);
  assert.ok(
    (versions['HTTP/2'] ?? 0) > LEAST_HTTP2_EXCHANGES,
    `requests went over HTTP/2: ${JSON.stringify(versions)}`,
  );
}
