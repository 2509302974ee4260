// `npm run bench:journal`: what the client journal adds to an API request, measured in one
// process: the pipeline alone (request-pipeline.ts, the checks every request goes through) against
// the pipeline plus the journal's record of the same request, on the same request objects, in
// alternating rounds. It writes bench/journal-results.md. No network: the rest of a request (TLS,
// parsing, writing) is the same with or without the journal and is measured by `npm run bench`.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IncomingMessage } from 'node:http';
import { DEFAULT_FIXTURES_FILE, loadFixtures } from '../reference-server/store/fixtures.ts';
import { Journal } from '../reference-server/journal/journal.ts';
import { handleApiRequest, type PipelineContext } from '../reference-server/api/request-pipeline.ts';
import { requestFacts } from '../reference-server/addressing/address.ts';
import { CORRECT_STEPS } from '../reference-server/steps/server-steps.ts';
import { TenantData } from '../reference-server/store/tenant-data.ts';

const ROUNDS = 7;
const REQUESTS_PER_ROUND = 200_000;
const fixtures = loadFixtures(DEFAULT_FIXTURES_FILE);
const secret = fixtures.tenants[0]?.keys.find((key) => key.id === 'key_acme_prod_read')?.secret ?? '';
const data = new TenantData(fixtures);
const context: PipelineContext = { domain: 'localhost', data, steps: CORRECT_STEPS };
const journal = new Journal({ data });

/** A request as the pipeline and the journal read it: header lines, target, SNI. */
function requestWith(authorization: string): IncomingMessage {
  return {
    method: 'GET',
    url: '/v1/customers',
    rawHeaders: [
      'Host',
      'acme.api.localhost',
      'User-Agent',
      'bench-client/1.0',
      'Accept',
      'application/json',
      'Authorization',
      authorization,
    ],
    socket: { servername: 'acme.api.localhost' },
  } as unknown as IncomingMessage;
}

const SCENARIOS = {
  'valid key': requestWith(`Bearer ${secret}`),
  'unknown key': requestWith(`Bearer mbk_prod_${'A'.repeat(32)}`),
};

function timeRound(req: IncomingMessage, record: boolean): number {
  const started = process.hrtime.bigint();
  for (let index = 0; index < REQUESTS_PER_ROUND; index++) {
    // What the server does for every request, journal on or off: its address, then the pipeline.
    const facts = requestFacts(req, context);
    const response = handleApiRequest(req, context, facts);
    if (record) journal.recordApi(req, facts, response);
  }
  return Number(process.hrtime.bigint() - started) / REQUESTS_PER_ROUND;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

const rows: string[] = [];
for (const [name, req] of Object.entries(SCENARIOS)) {
  timeRound(req, true); // warm-up, both paths
  timeRound(req, false);
  const alone: number[] = [];
  const recorded: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    // Alternating order, so that a slow moment of the machine falls on both.
    if (round % 2 === 0) {
      alone.push(timeRound(req, false));
      recorded.push(timeRound(req, true));
    } else {
      recorded.push(timeRound(req, true));
      alone.push(timeRound(req, false));
    }
  }
  const ratio = median(recorded) / median(alone);
  const journalNs = median(recorded) - median(alone);
  rows.push(
    `| ${name} | ${median(alone).toFixed(0)} | ${median(recorded).toFixed(0)} | ${journalNs.toFixed(0)} | ${ratio.toFixed(2)} |`,
  );
}

/** What follows this line in the results file is notes of the team, kept when the table is rewritten. */
const NOTES_MARKER = '<!-- notes: kept as they are when the bench rewrites the table above -->';
const resultsFile = join(import.meta.dirname, 'journal-results.md');
const previous = existsSync(resultsFile) ? readFileSync(resultsFile, 'utf8') : '';
const notes = previous.includes(NOTES_MARKER) ? previous.slice(previous.indexOf(NOTES_MARKER)) : '';

const report = [
  '# Client journal: cost per request',
  '',
  `Written by \`npm run bench:journal\` (${ROUNDS} alternating rounds of ${REQUESTS_PER_ROUND} requests, median; Node ${process.version}).`,
  "The server's own work for a request (its address, then the API's pipeline) alone against the same",
  'plus the journal recording the request, in one process, without network. Compare the ratio and the',
  "journal's share, not the times: they depend on the machine and its load.",
  '',
  '| request | pipeline, ns | pipeline + journal, ns | journal, ns | ratio |',
  '|---|---|---|---|---|',
  ...rows,
  '',
  ...(notes ? [notes.trimEnd(), ''] : []),
].join('\n');
writeFileSync(resultsFile, report);
console.log(report);
