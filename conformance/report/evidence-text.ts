// One exchange of a rule's evidence as plain text (JUnit, Markdown, the console): the request,
// the answer, and the curl command that reproduces it.
import type { Evidence } from '../../schemas/generated/conformance-report.ts';
import { curlCommand, type CurlTarget } from './curl.ts';

export function requestLine(evidence: Evidence): string {
  return `${evidence.method} ${evidence.url}${evidence.note ? ` (${evidence.note})` : ''}`;
}

export function answerLine(evidence: Evidence): string {
  return evidence.failure !== undefined
    ? `no response: ${evidence.failure}`
    : `${evidence.status ?? '?'}${evidence.errorCode ? ` ${evidence.errorCode}` : ''}`;
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
