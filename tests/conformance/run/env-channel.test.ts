// One channel between the kit's processes (conformance/env.ts): every hand-over is declared there
// once, with its type, writer and readers; no other file of the kit names `process.env`, so each
// is read and written there alone, and a library function is given its environment rather than
// taking the process's by default. A user's own value of a hand-over never enters a run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import {
  ENV,
  HAND_OVERS,
  HAND_OVER_VARIABLES,
  handOver,
  handOverVariables,
  isHandOver,
  onlyHandOvers,
  setForWorkers,
  setHandOvers,
  withoutHandOvers,
} from '../../../conformance/env.ts';
import { REPO_ROOT } from '../../support/conformance-run.ts';

/** The kit's own code: what a run's processes load. */
const KIT_DIRECTORIES = ['conformance', 'cli', 'library', 'kit', 'mutation'];
/** The kit's configs at the root (the panel's is the project's browser tests', not the kit's). */
const KIT_ROOT_FILES = ['playwright.config.ts'];
const CHANNEL = 'conformance/env.ts';

function sourceFiles(directory: string): string[] {
  return readdirSync(join(REPO_ROOT, directory), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(ts|mts|js|mjs)$/.test(entry.name))
    .map((entry) => relative(REPO_ROOT, join(entry.parentPath, entry.name)));
}

const KIT_FILES = [...KIT_DIRECTORIES.flatMap(sourceFiles), ...KIT_ROOT_FILES].sort();

test('no file of the kit but the channel names process.env', () => {
  assert.ok(KIT_FILES.includes(CHANNEL));
  assert.ok(KIT_FILES.length > 100, `the walk found the kit's files (${KIT_FILES.length})`);
  const naming = KIT_FILES.filter((file) =>
    /process\s*\.\s*env\b/.test(readFileSync(join(REPO_ROOT, file), 'utf8')),
  );
  assert.deepEqual(
    naming,
    [CHANNEL],
    'read and write variables through conformance/env.ts; pass an environment as a value',
  );
});

test('every hand-over is declared once: a name, a type, who writes it, who reads it', () => {
  const rows = Object.values(HAND_OVERS);
  assert.deepEqual(
    HAND_OVER_VARIABLES,
    rows.map((row) => row.name),
  );
  assert.equal(new Set(HAND_OVER_VARIABLES).size, rows.length, 'no name twice');
  for (const row of rows) {
    assert.match(row.name, /^[A-Z][A-Z0-9_]+$/);
    assert.ok(['json', 'path', 'port', 'flag'].includes(row.type), row.name);
    assert.ok(row.writer.length > 10 && row.readers.length > 10, `${row.name}: its writer and readers`);
  }
  // ENV names each hand-over by the key of its row.
  for (const [key, row] of Object.entries(HAND_OVERS))
    assert.equal(ENV[key as keyof typeof ENV], row.name, key);
});

test("no other file of the kit spells a hand-over's name: it takes it from the channel", () => {
  // A setting's row of the option table names its variable (protocolsNotOffered's is handed over).
  const declaring = new Set([CHANNEL, 'conformance/run-option-table.ts']);
  for (const name of HAND_OVER_VARIABLES) {
    const spelling = KIT_FILES.filter(
      (file) => !declaring.has(file) && readFileSync(join(REPO_ROOT, file), 'utf8').includes(`'${name}'`),
    );
    assert.deepEqual(spelling, [], name);
  }
});

test("a user's starting environment loses every hand-over, the batch's own included, and keeps the rest", () => {
  const user = {
    [ENV.batchVariants]: '[]',
    [ENV.batchPlan]: '/tmp/plan.json',
    [ENV.projectState]: '/tmp/forged',
    CONFORMANCE_MINTED_FULL_ACCESS: 'forged',
    [ENV.maxRps]: '5',
    ACME_KEY: 'the target file names it',
  };
  const { env, ignored } = withoutHandOvers(user);
  assert.deepEqual(env, { [ENV.maxRps]: '5', ACME_KEY: 'the target file names it' });
  assert.deepEqual(
    ignored,
    [ENV.batchVariants, ENV.projectState, 'CONFORMANCE_MINTED_FULL_ACCESS', ENV.batchPlan].sort(),
  );
  assert.deepEqual(onlyHandOvers(user), {
    [ENV.batchVariants]: '[]',
    [ENV.batchPlan]: '/tmp/plan.json',
    [ENV.projectState]: '/tmp/forged',
    CONFORMANCE_MINTED_FULL_ACCESS: 'forged',
  });
});

test('hand-overs are written by key and read back by key; an input never passes as one, nor one as an input', () => {
  const variables = handOverVariables({ trafficFile: '/tmp/traffic.json', outcomeFile: undefined });
  assert.deepEqual(variables, { [ENV.trafficFile]: '/tmp/traffic.json' });
  assert.equal(handOver('trafficFile', variables), '/tmp/traffic.json');
  assert.equal(handOver('outcomeFile', variables), undefined);
  assert.throws(() => setHandOvers({ [ENV.maxRps]: '1000' }), new RegExp(`Not hand-overs .*${ENV.maxRps}`));
  assert.throws(
    () => setForWorkers({ [ENV.preflight]: '{}' }),
    new RegExp(`Hand-overs, not inputs: ${ENV.preflight}`),
  );
  assert.equal(isHandOver(ENV.maxRps), false);
});
