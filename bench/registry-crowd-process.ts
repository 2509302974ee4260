// A page-loading crowd for `npm run bench:registry-reads`, in a process of its own: its TLS and its
// loops run on this process's event loop, never on the registry's or on the measuring client's, so
// what the measuring client sees is the registry. Started by bench/registry-reads.ts through IPC
// (BENCH_CROWD_CONFIG); it loads `/` and deployments' pages back to back with `clients` loops, each
// on its own connection, until it is sent 'stop', `maxPages` pages or `maxSeconds` — whichever is
// first — and answers with the number of pages it loaded.
import { Agent, fetch } from 'undici';

export interface CrowdConfig {
  url: string;
  ca: string;
  clients: number;
  /** Deployments `${prefix}0…` whose pages are loaded in turn. */
  prefix: string;
  deployments: number;
  maxPages: number;
  maxSeconds: number;
}

export type CrowdReply = { type: 'ready' } | { type: 'done'; pages: number; failures: number };

const config = JSON.parse(process.env.BENCH_CROWD_CONFIG ?? '{}') as CrowdConfig;
const reply = (message: CrowdReply): void => void process.send?.(message);

let stopping = false;
let pages = 0;
let failures = 0;
const deadline = performance.now() + config.maxSeconds * 1000;
process.on('message', () => {
  stopping = true;
});
// A bench that ends (or fails) takes its crowd with it.
process.on('disconnect', () => {
  stopping = true;
});

async function client(index: number): Promise<void> {
  // One connection per client, as separate browsers would hold.
  const dispatcher = new Agent({ connect: { ca: config.ca }, connections: 1 });
  for (let step = 0; !stopping && pages < config.maxPages && performance.now() < deadline; step++) {
    const path =
      step % 2 === 0 ? '/' : `/deployments/${config.prefix}${(index * 7 + step) % config.deployments}`;
    try {
      const answer = await fetch(`${config.url}${path}`, { dispatcher });
      await answer.arrayBuffer();
      if (answer.status === 200) pages++;
      else failures++;
    } catch {
      failures++;
    }
  }
  await dispatcher.close();
}

reply({ type: 'ready' });
await Promise.all(Array.from({ length: config.clients }, (_, index) => client(index)));
reply({ type: 'done', pages, failures });
process.disconnect?.();
