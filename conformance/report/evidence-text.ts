// One exchange of a rule's evidence as plain text (JUnit, Markdown, the console): the request,
// the answer, and the curl command that reproduces it.
import type { Evidence } from '../../schemas/generated/conformance-report.ts';
import { curlCommand, type CurlTarget } from './curl.ts';
import { requestLine } from '../requests/exchange-record.ts';

export function answerLine(evidence: Evidence): string {
  const answer =
    evidence.failure !== undefined
      ? `no response: ${evidence.failure}`
      : `${evidence.status ?? '?'}${evidence.errorCode ? ` ${evidence.errorCode}` : ''}`;
  const tries = triesLine(evidence);
  return tries ? `${answer} (${tries})` : answer;
}

/** The earlier tries of the request, each a transient answer sent again: "after 429 (waited 1000 ms), 503 (…)". */
export function triesLine(evidence: Evidence): string | undefined {
  if (!evidence.attempts?.length) return undefined;
  const tries = evidence.attempts.map(
    (attempt) => `${attempt.status ?? attempt.signal}, waited ${attempt.retriedAfterMs} ms`,
  );
  return `try ${evidence.attempts.length + 1}; earlier transient answers, not judged: ${tries.join('; ')}`;
}

export function evidenceLines(evidence: Evidence, target: CurlTarget): string[] {
  return [
    `Request: ${requestLine(evidence)}`,
    ...(evidence.requestHeaders ?? []).map(({ name, value }) => `  ${name}: ${value}`),
    `Answer: ${answerLine(evidence)}`,
    ...Object.entries(evidence.headers ?? {}).map(([name, value]) => `  ${name}: ${value}`),
    ...(evidence.bodyExcerpt ? [`  body: ${evidence.bodyExcerpt}`] : []),
    `Reproduce: ${curlCommand(evidence, target)}`,
    ...(evidence.exchange ? [`exchanges.har entry _id ${evidence.exchange}`] : []),
  ];
}
