// Shared by the registry's benchmarks: a median and a p99 of the same run, the section of the
// results that `npm run bench:registry-reads` writes (bench/registry-reads.ts: the reads at 1 000,
// 10 000 and 100 000 runs and under a crowd, in processes of their own), and, for
// `npm run bench:registry`, the registry's RSS at rest and under 20 concurrent large uploads.
// Every loop is bounded.
import type { KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { Agent, fetch } from 'undici';
import { uploadOf, uploadPieces } from '../registry/publish/upload.ts';
import { makeBundle } from '../tests/registry/support/bundles.ts';
import type { TestRegistry } from '../tests/registry/support/registry.ts';

export interface Spread {
  median: number;
  p99: number;
}

export function spread(times: number[]): Spread {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (p: number): number =>
    sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
  return { median: at(50), p99: at(99) };
}

export const READS_START = '<!-- bench:registry-reads start -->';
export const READS_END = '<!-- bench:registry-reads end -->';

/**
 * The results file with the section `npm run bench:registry-reads` writes replaced by `replacement`
 * (added at the end when it has none); bench/registry.ts keeps it as it is when it rewrites the rest.
 */
export function withReadsSection(text: string, replacement: string): string {
  const start = text.indexOf(READS_START);
  const end = text.indexOf(READS_END);
  if (start < 0 || end < start) return `${text.trimEnd()}\n\n${replacement}\n`;
  return `${text.slice(0, start)}${replacement}${text.slice(end + READS_END.length)}`;
}

/** The reads section of the results file as it stands, or '' when it has none. */
export function readsSection(text: string): string {
  const start = text.indexOf(READS_START);
  const end = text.indexOf(READS_END);
  return start < 0 || end < start ? '' : text.slice(start, end + READS_END.length);
}

/** Sends every body at once (each a piece at a time), sampling the RSS: its peak, and the answers. */
async function peakWhileSent(
  registry: TestRegistry,
  atRest: number,
  bodies: (() => Iterable<Buffer>)[],
): Promise<{ peak: number; answers: Record<number, number> }> {
  const token = registry.tokens.get('acme') ?? '';
  const dispatcher = new Agent({ connect: { ca: readFileSync(registry.caPath, 'utf8') } });
  let peak = atRest;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 20);
  const answers: Record<number, number> = {};
  await Promise.all(
    bodies.map(async (body) => {
      const answer = await fetch(`${registry.registry.url}/api/v1/runs`, {
        method: 'POST',
        dispatcher,
        duplex: 'half',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: Readable.from(body(), { objectMode: false }),
      }).catch(() => undefined);
      await answer?.arrayBuffer();
      const status = answer?.status ?? 0;
      answers[status] = (answers[status] ?? 0) + 1;
    }),
  );
  clearInterval(sampler);
  await dispatcher.close();
  return { peak, answers };
}

export interface MemoryRow {
  atRest: number;
  peak: number;
  uploads: number;
  uploadBytes: number;
  answers: Record<number, number>;
  /** RSS once every answer came, after a collection where exposed: what the uploads left. */
  after: number;
}

/**
 * The process's RSS at rest, and its peak while `uploads` uploads of `uploadBytes` each arrive at
 * once: a real bundle's files and one large extra file, refused once read, parsed and checked
 * (422). The bodies are streamed from a generator, so the sender itself holds almost nothing of
 * them and the RSS measured is the registry's.
 */
export async function memoryUnderUploads(
  registry: TestRegistry,
  key: KeyObject,
  uploads = 20,
  uploadBytes = 40 * 1024 * 1024,
): Promise<MemoryRow> {
  (globalThis as { gc?: () => void }).gc?.();
  const atRest = process.memoryUsage().rss;
  const upload = uploadOf(makeBundle({ key }), 'memory', '1.0.0');
  const head = Buffer.from(`${upload.slice(0, upload.lastIndexOf('}}'))},"padding.txt":"`);
  const tail = Buffer.from('"}}');
  const chunk = Buffer.from('YWFh'.repeat(16 * 1024)); // base64 of "aaa" × 16 Ki: 64 KiB a chunk
  const chunks = Math.ceil((uploadBytes * 4) / 3 / chunk.length);
  function* body(): Generator<Buffer> {
    yield head;
    for (let index = 0; index < chunks; index++) yield chunk;
    yield tail;
  }
  const { peak, answers } = await peakWhileSent(
    registry,
    atRest,
    Array.from({ length: uploads }, () => body),
  );
  return {
    atRest,
    peak,
    uploads,
    uploadBytes: head.length + chunks * chunk.length + tail.length,
    answers,
    after: settledRss(),
  };
}

/**
 * The process's RSS at rest and its peak while `uploads` signed bundles whose HAR is `padding`
 * bytes larger arrive at once, sent a piece at a time as `registry publish` sends them, each
 * verified and stored (as many as the uploads in flight and waiting take: sent no more than that).
 */
export async function storedLargeUploads(
  registry: TestRegistry,
  key: KeyObject,
  uploads = 8,
  padding = 40 * 1024 * 1024,
): Promise<MemoryRow> {
  const bundles = Array.from({ length: uploads }, (_, index) =>
    makeBundle({ key, harPadding: padding, startedAt: new Date(Date.UTC(2026, 1, 1, index)) }),
  );
  (globalThis as { gc?: () => void }).gc?.();
  const atRest = process.memoryUsage().rss;
  let uploadBytes = 0;
  const bodies = bundles.map(
    (bundle, index) =>
      function* counted(): Generator<Buffer> {
        for (const piece of uploadPieces(bundle, 'stored', `1.0.${index}`)) {
          if (index === 0) uploadBytes += piece.length;
          yield piece;
        }
      },
  );
  const { peak, answers } = await peakWhileSent(registry, atRest, bodies);
  return { atRest, peak, uploads, uploadBytes, answers, after: settledRss() };
}

function settledRss(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().rss;
}
