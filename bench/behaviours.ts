// `npm run bench:behaviours`: what behaviours that do not match add to a tenant API request,
// measured in one process as bench/journal-cost.ts measures the journal: the server's own work for
// a request (its address, the API's pipeline, the behaviour stage's choice) with no behaviour,
// against the same with 1 and 10 behaviours that match other requests, in alternating rounds on
// the same request objects. It writes bench/behaviours-results.md. The writing of the answer is
// the same in all three and is left out.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { format } from 'prettier';
import type { IncomingMessage } from 'node:http';
import { DEFAULT_FIXTURES_FILE, loadFixtures } from '../reference-server/store/fixtures.ts';
import { handleApiRequest, type PipelineContext } from '../reference-server/api/request-pipeline.ts';
import { requestFacts } from '../reference-server/addressing/address.ts';
import { CORRECT_STEPS } from '../reference-server/steps/server-steps.ts';
import { TenantData } from '../reference-server/store/tenant-data.ts';
import { BehaviourTable } from '../reference-server/behaviours/behaviour-table.ts';
import { median } from './numbers.ts';

const ROUNDS = 7;
const REQUESTS_PER_ROUND = 200_000;
const fixtures = loadFixtures(DEFAULT_FIXTURES_FILE);
const secret = fixtures.tenants[0]?.keys.find((key) => key.id === 'key_acme_prod_read')?.secret ?? '';
const data = new TenantData(fixtures);
const context: PipelineContext = { domain: 'localhost', data, steps: CORRECT_STEPS };

const req = {
  method: 'GET',
  url: '/v1/customers',
  rawHeaders: [
    'Host',
    'acme.api.localhost',
    'Accept',
    'application/json',
    'Authorization',
    `Bearer ${secret}`,
  ],
  socket: { servername: 'acme.api.localhost' },
} as unknown as IncomingMessage;

/** A table of `count` behaviours, each for another tenant's requests: none matches this one. */
function tableOf(count: number): BehaviourTable {
  const table = new BehaviourTable(data);
  if (count > 0)
    table.add(
      Array.from({ length: count }, () => ({
        kind: 'error' as const,
        status: 503,
        code: 'down',
        tenant: 'globex',
      })),
    );
  return table;
}

const TABLES = {
  'no behaviour': tableOf(0),
  '1 behaviour, not matching': tableOf(1),
  '10 behaviours, not matching': tableOf(10),
};

function timeRound(table: BehaviourTable): number {
  let taken = 0;
  const started = process.hrtime.bigint();
  for (let index = 0; index < REQUESTS_PER_ROUND; index++) {
    const facts = requestFacts(req, context);
    handleApiRequest(req, context, facts);
    // As the front door does: the stage is asked only when the table holds a behaviour.
    if (table.size !== 0 && table.take(facts, req.method ?? '', req.url ?? '/')) taken += 1;
  }
  if (taken !== 0) throw new Error('a behaviour matched: the bench measures behaviours that do not');
  return Number(process.hrtime.bigint() - started) / REQUESTS_PER_ROUND;
}

const names = Object.keys(TABLES) as (keyof typeof TABLES)[];
const times = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<
  keyof typeof TABLES,
  number[]
>;
for (const name of names) timeRound(TABLES[name]); // warm-up
for (let round = 0; round < ROUNDS; round++) {
  // Rotating order, so that a slow moment of the machine falls on each.
  const order = [...names.slice(round % names.length), ...names.slice(0, round % names.length)];
  for (const name of order) times[name].push(timeRound(TABLES[name]));
}
const base = median(times['no behaviour']);
const rows = names.map((name) => {
  const ns = median(times[name]);
  return `| ${name} | ${ns.toFixed(0)} | ${(ns - base).toFixed(0)} | ${(ns / base).toFixed(2)} |`;
});
const report = [
  '# Behaviours: cost per request they do not match',
  '',
  `Written by \`npm run bench:behaviours\` (${ROUNDS} rotating rounds of ${REQUESTS_PER_ROUND} requests, median; Node ${process.version}).`,
  "The server's own work for a request (its address, the API's pipeline, the behaviour stage's",
  'choice) with no behaviour, against the same with behaviours for another tenant. Compare the',
  'added nanoseconds and the ratio, not the times: they depend on the machine and its load.',
  '',
  '| behaviours | ns per request | added, ns | ratio |',
  '|---|---|---|---|',
  ...rows,
  '',
].join('\n');
writeFileSync(
  join(import.meta.dirname, 'behaviours-results.md'),
  await format(report, { parser: 'markdown' }),
);
console.log(report);
