// What a run's tests reached and saw, as the conformance reporter gathers it: every exchange (for
// exchanges.har and the traffic summary), and by shard the origins its tests reached and the
// certificates its set-up test saw — a merge judges each shard's record by them.
import type { TestResult } from '@playwright/test/reporter';
import type { TlsEvidence } from '../../schemas/generated/conformance-report.ts';
import { PREFLIGHT, type RunExchange } from '../report/har.ts';
import { shardDisagreements, type ShardRecord } from '../report/shard-records.ts';
import type { RecordedExchange } from '../requests/exchange-record.ts';
import type { KeyNamer } from '../redaction/shown-keys.ts';
import { ANNOTATION } from './annotations.ts';
import { annotationOf, originOf, showEveryString } from './reporter-results.ts';

const LEARNING = "learning the tenants' data (before the checks)";

interface SeenByShard {
  origins: Set<string>;
  tls?: TlsEvidence[];
}

export class RunEvidence {
  readonly exchanges: RunExchange[] = [];
  /** What each shard's tests reached and saw, by shard ('' unsharded). */
  readonly #seenByShard = new Map<string, SeenByShard>();

  /** The exchanges a rule's test attached (keys already shown as variables, and shown again here). */
  collectExchanges(ruleId: string, result: TestResult, namer: KeyNamer, over?: string): void {
    const origins = this.#seenIn(annotationOf(result, ANNOTATION.shard) ?? '').origins;
    for (const attachment of result.attachments) {
      const madeBy =
        attachment.name === ANNOTATION.exchanges
          ? ruleId
          : attachment.name === ANNOTATION.learningExchanges
            ? LEARNING
            : undefined;
      if (madeBy === undefined || !attachment.body) continue;
      const exchanges = showEveryString(JSON.parse(attachment.body.toString('utf8')), namer);
      for (const exchange of exchanges as RecordedExchange[]) {
        this.exchanges.push({ madeBy, exchange, ...(over !== undefined ? { over } : {}) });
        origins.add(originOf(exchange.request.url));
      }
    }
  }

  /**
   * The set-up test's attachments: the certificates and protocols its preflight saw, its requests,
   * and those by which it learned the tenants' data for the run (setup-learning.ts).
   */
  preflightSeen(result: TestResult, namer: KeyNamer): void {
    // Over the protocol the learning spoke (its annotation), for the run's checker.
    this.collectExchanges('', result, namer, annotationOf(result, ANNOTATION.protocol));
    const sent = result.attachments.find(
      (attachment) => attachment.name === ANNOTATION.preflightExchanges,
    )?.body;
    if (sent)
      for (const exchange of showEveryString(JSON.parse(sent.toString('utf8')), namer) as RecordedExchange[])
        this.exchanges.push({ madeBy: PREFLIGHT, exchange });
    const body = result.attachments.find((attachment) => attachment.name === ANNOTATION.preflightTls)?.body;
    if (!body) return;
    this.#seenIn(annotationOf(result, ANNOTATION.shard) ?? '').tls = JSON.parse(
      body.toString('utf8'),
    ) as TlsEvidence[];
  }

  /** The certificates the set-up tests saw (a merge: every shard's), each host's once. */
  tlsSeen(): TlsEvidence[] {
    const all = [...this.#seenByShard.values()].flatMap((seen) => seen.tls ?? []);
    return all.filter(
      (tls, index) =>
        all.findIndex((other) => other.host === tls.host && other.fingerprint256 === tls.fingerprint256) ===
        index,
    );
  }

  /**
   * In a merge: each shard's record with what its blob shows it reached and saw (`seen`), which
   * shardDisagreements holds against the record and against the other shards. A record edited to
   * name another target than its exchanges went to is caught here, and by `verify`. What cannot
   * be judged is a run error, told through `runError`.
   */
  judgedShards(records: readonly ShardRecord[], runError: (message: string) => void): ShardRecord[] {
    const judged = records.map((record) => {
      const seen = this.#seenByShard.get(record.shard);
      return {
        ...record,
        seen: {
          origins: [...(seen?.origins ?? [])].sort(),
          tls: (seen?.tls ?? []).map(({ host, fingerprint256 }) => ({ host, fingerprint256 })),
        },
      };
    });
    const recorded = new Set(records.map((record) => record.shard));
    const unrecorded = [...this.#seenByShard.keys()].filter((shard) => shard !== '' && !recorded.has(shard));
    for (const shard of unrecorded)
      runError(`the blobs hold results of shard ${shard}, but no record of it was gathered`);
    for (const disagreement of shardDisagreements(judged)) console.error(`Warning: ${disagreement}`);
    return judged;
  }

  /** The shard's evidence, made on first use. */
  #seenIn(shard: string): SeenByShard {
    const seen = this.#seenByShard.get(shard) ?? { origins: new Set<string>() };
    this.#seenByShard.set(shard, seen);
    return seen;
  }
}
