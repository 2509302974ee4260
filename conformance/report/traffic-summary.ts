// What the target's fronts answered during a run, and how the run paced itself: counted from the
// run's exchanges (so a merge of shards counts them too), with the pace the run ended at.
import type { ConformanceReport } from '../../schemas/generated/conformance-report.ts';
import type { RunExchange } from './har.ts';
import { isUnavailable, RATE_LIMITED } from '../requests/transient.ts';

export type Traffic = NonNullable<ConformanceReport['traffic']>;

/** The transient status of an exchange: a retried answer, or the last try of one never answered otherwise. */
function transientStatus({ exchange }: RunExchange): number | undefined {
  if (exchange.retriedAfterMs !== undefined) return exchange.response?.status;
  return exchange.transientStatus;
}

/** The run's traffic, or undefined when nothing was transient and the run was never paced. */
export function trafficOf(
  exchanges: readonly RunExchange[],
  pacedRate: number | undefined,
): Traffic | undefined {
  const statuses = exchanges.flatMap((exchange) => transientStatus(exchange) ?? []);
  const retried = exchanges.filter(({ exchange }) => exchange.retriedAfterMs !== undefined);
  const signals: Record<string, number> = {};
  for (const { exchange } of exchanges)
    if (exchange.signal !== undefined) signals[exchange.signal] = (signals[exchange.signal] ?? 0) + 1;
  const signalled = Object.keys(signals).length > 0;
  if (statuses.length === 0 && !signalled && pacedRate === undefined) return undefined;
  const waitedMs = retried.reduce((sum, { exchange }) => sum + (exchange.retriedAfterMs ?? 0), 0);
  return {
    rateLimited: statuses.filter((status) => status === RATE_LIMITED).length,
    unavailable: statuses.filter(isUnavailable).length,
    retries: retried.length,
    ...(signalled ? { signals } : {}),
    waitedSeconds: Math.round(waitedMs / 100) / 10,
    ...(pacedRate !== undefined ? { pacedRequestsPerSecond: Math.round(pacedRate * 10) / 10 } : {}),
  };
}

/** Requests each rule sent again after a transient answer. */
export function retriesByRule(exchanges: readonly RunExchange[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const { madeBy, exchange } of exchanges)
    if (exchange.retriedAfterMs !== undefined) counts.set(madeBy, (counts.get(madeBy) ?? 0) + 1);
  return counts;
}

/** One line for a person: "the target rate-limited 23 requests; the run paced itself to 4.1 requests/s". */
export function trafficLine(traffic: Traffic | undefined): string | undefined {
  if (!traffic) return undefined;
  const said: string[] = [];
  if (traffic.rateLimited > 0) said.push(`the target rate-limited ${plural(traffic.rateLimited, 'request')}`);
  if (traffic.unavailable > 0)
    said.push(`answered ${plural(traffic.unavailable, 'request')} 502/503/504 (unavailable)`);
  const signals = Object.entries(traffic.signals ?? {});
  if (signals.length > 0)
    said.push(
      `a front left ${plural(
        signals.reduce((sum, [, count]) => sum + count, 0),
        'request',
      )} unanswered (${signals.map(([signal, count]) => `${signal} ${count}`).join(', ')})`,
    );
  if (traffic.retries > 0)
    said.push(
      `${plural(traffic.retries, 'request')} sent again after ${traffic.waitedSeconds ?? 0} s of waiting in all`,
    );
  if (traffic.pacedRequestsPerSecond !== undefined)
    said.push(`the run paced itself to ${traffic.pacedRequestsPerSecond} requests/s`);
  return said.join('; ');
}

/** "1 retry", "3 retries": a rule's requests sent again after a transient answer. */
export function retriesText(retries: number): string {
  return retries === 1 ? '1 retry' : `${retries} retries`;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
