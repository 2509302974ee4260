// The registry as the stored runs grow, for `npm run bench:registry` (bench/registry.ts writes the
// results): can-i-ship, the badge (of a known and of an unknown deployment) and the list pages over
// HTTPS at 1 000, 10 000 and 100 000 stored runs — seeded straight into the database, a run's facts
// copied from one published run — then can-i-ship while a crowd loads pages, and the registry's
// RSS at rest and under 20 concurrent large uploads. Every loop is bounded; every number is a
// median or a p99 of the same run, to be compared with each other.
import type { KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { Agent, fetch } from 'undici';
import { uploadOf, uploadPieces } from '../registry/publish/upload.ts';
import { makeBundle } from '../tests/registry/support/bundles.ts';
import { seedRuns } from '../tests/registry/support/seed.ts';
import type { TestRegistry } from '../tests/registry/support/registry.ts';

export const SCALES = [1_000, 10_000, 100_000] as const;
const DEPLOYMENTS = 100;
const SAMPLES = 100;

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

async function sample(count: number, once: (index: number) => Promise<unknown>): Promise<Spread> {
  const times: number[] = [];
  for (let index = 0; index < count; index++) {
    const started = performance.now();
    await once(index);
    times.push(performance.now() - started);
  }
  return spread(times);
}

export interface ScaleRow {
  runs: number;
  seedSeconds: number;
  canIShip: Spread;
  badge: Spread;
  unknownBadge: Spread;
  certifiedPage: Spread;
  historyPage: Spread;
}

/** Answers a path, failing on anything but `status`. */
async function expect(registry: TestRegistry, path: string, status = 200): Promise<void> {
  const answer = await registry.request(path);
  if (answer.status !== status) throw new Error(`${path}: ${answer.status} ${answer.text.slice(0, 200)}`);
}

const shipPath = (index: number): string =>
  `/api/v1/can-i-ship?deployment=s${index % DEPLOYMENTS}&version=1.0.${index % 7}`;

/** Seeds up to each scale in turn (the runs of the last are kept) and measures every read at it. */
export async function readsAtScale(registry: TestRegistry, template: number): Promise<ScaleRow[]> {
  const rows: ScaleRow[] = [];
  let stored = 0;
  for (const runs of SCALES) {
    // The runs of one scale go on the runs of the one before: each seeding is its difference.
    const seedSeconds = await seedRuns(registry.backend.db, {
      prefix: 's',
      first: stored,
      deployments: DEPLOYMENTS,
      runs: runs - stored,
      template,
      copyOutcomes: false,
    });
    stored = runs;
    for (let index = 0; index < 20; index++) await expect(registry, shipPath(index)); // warm-up
    rows.push({
      runs,
      seedSeconds,
      canIShip: await sample(SAMPLES, (index) => expect(registry, shipPath(index))),
      badge: await sample(SAMPLES, (index) => expect(registry, `/badge/s${index % DEPLOYMENTS}.svg`)),
      unknownBadge: await sample(SAMPLES, () => expect(registry, '/badge/nowhere.svg', 404)),
      certifiedPage: await sample(SAMPLES, () => expect(registry, '/')),
      historyPage: await sample(SAMPLES, (index) => expect(registry, `/deployments/s${index % DEPLOYMENTS}`)),
    });
  }
  return rows;
}

export interface CrowdRow {
  alone: Spread;
  crowded: Spread;
  crowd: number;
  pagesLoaded: number;
}

/** can-i-ship alone, then while `crowd` clients load pages back to back. */
export async function canIShipUnderCrowd(registry: TestRegistry, crowd = 8): Promise<CrowdRow> {
  const alone = await sample(SAMPLES, (index) => expect(registry, shipPath(index)));
  let loading = true;
  let pagesLoaded = 0;
  const loaders = Array.from({ length: crowd }, async (_, client) => {
    for (let index = 0; loading && index < 100_000; index++) {
      await expect(registry, index % 2 === 0 ? '/' : `/deployments/s${(client + index) % DEPLOYMENTS}`);
      pagesLoaded++;
    }
  });
  const crowded = await sample(SAMPLES, (index) => expect(registry, shipPath(index)));
  loading = false;
  await Promise.all(loaders);
  return { alone, crowded, crowd, pagesLoaded };
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
  return { atRest, peak, uploads, uploadBytes: head.length + chunks * chunk.length + tail.length, answers };
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
  return { atRest, peak, uploads, uploadBytes, answers };
}
