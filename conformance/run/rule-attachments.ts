// What a rule's test attaches for the reporter: its exchanges, the learning exchanges (once, on
// the test that learned) and a failure's evidence (conformance/run/annotations.ts names them).
import type { TestInfo } from '@playwright/test';
import type { ConformanceFailure } from '../judging/checks.ts';
import type { Knowledge } from '../judging/knowledge.ts';
import type { KeyNamer } from '../redaction/shown-keys.ts';
import type { Exchange } from '../requests/exchange.ts';
import { recordExchange } from '../requests/exchange-record.ts';
import { ANNOTATION } from './annotations.ts';

export async function attachExchanges(
  testInfo: TestInfo,
  name: string,
  exchanges: readonly Exchange[],
  namer: KeyNamer,
): Promise<void> {
  if (exchanges.length === 0) return;
  await testInfo.attach(name, {
    body: JSON.stringify(exchanges.map((exchange) => recordExchange(exchange, namer))),
    contentType: 'application/json',
  });
}

/**
 * Learning exchanges belong to no rule: the test that learned carries them — the set-up project's
 * (setup-learning.ts), or without one the first test of the worker.
 */
const learningAttached = new WeakSet<Exchange[]>();
export async function attachLearningOnce(
  testInfo: TestInfo,
  learningExchanges: Exchange[],
  namer: KeyNamer,
  knowledge: Knowledge,
): Promise<void> {
  if (learningAttached.has(learningExchanges)) return;
  learningAttached.add(learningExchanges);
  await attachExchanges(testInfo, ANNOTATION.learningExchanges, learningExchanges, namer);
  // The tenants' values, for the run's checker (judging/run-checker.ts): the reporter holds every
  // exchange of the run to the invariants once the rules have run, learning's own requests included.
  const tenantValues = Object.fromEntries(
    (['own', 'other'] as const).flatMap((role) => {
      const tenant = knowledge[role];
      return tenant ? [[role, { label: tenant.label, values: [...tenant.values] }]] : [];
    }),
  );
  if (Object.keys(tenantValues).length > 0)
    await testInfo.attach(ANNOTATION.tenantValues, {
      body: JSON.stringify(tenantValues),
      contentType: 'application/json',
    });
}

export async function recordEvidence(testInfo: TestInfo, failure: ConformanceFailure): Promise<void> {
  // The evidence was redacted when it was made (Checks.evidence); it is attached as it is.
  await testInfo.attach(ANNOTATION.evidence, {
    body: JSON.stringify(
      { message: failure.message, evidence: failure.evidence, ...(failure.leak ? { leak: true } : {}) },
      null,
      2,
    ),
    contentType: 'application/json',
  });
}
