// `npm run mutation-matrix`: runs the mutation campaign of mutation/ (the conformance suite
// against the clean reference server and every faulty variant) and writes docs/mutation-matrix.md
// from it. `npm test` runs the same campaign and fails if the committed file differs.
import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { FAULT_NAMES } from '../mutation/catalog.ts';
import { runCampaign, VARIANTS } from '../mutation/campaign.ts';
import { judge, killed } from '../mutation/judge.ts';
import { MATRIX_FILE, renderMatrix } from '../mutation/matrix.ts';

const started = Date.now();
const runs = await runCampaign(VARIANTS, {
  onRun: (run, done, total) => console.error(`[${done}/${total}] ${run.variant}`),
});
writeFileSync(MATRIX_FILE, await renderMatrix(runs));

const faultRuns = runs.filter((run) => run.variant !== 'clean');
const missed = faultRuns.filter((run) => !killed(judge(run.variant as (typeof FAULT_NAMES)[number], run)));
console.log(
  `Wrote ${relative(process.cwd(), MATRIX_FILE)}: ${faultRuns.length - missed.length}/${faultRuns.length} faults caught, in ${Math.round((Date.now() - started) / 1000)} s.`,
);
if (missed.length > 0) {
  console.error(`Not caught: ${missed.map((run) => run.variant).join(', ')}. See the matrix.`);
  process.exitCode = 1;
}
