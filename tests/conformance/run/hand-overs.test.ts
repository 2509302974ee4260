// The variables by which a run's processes hand each other what they found (env.ts,
// HAND_OVER_VARIABLES) are never an input: set in the environment a user starts `run`, `merge` or
// a team's config in, each is ignored, with a warning naming it. A forged preflight (certificates
// of the forger's choosing, no HTTP/2 offered), forged shard records, a forged state directory:
// none reaches the report.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import {
  ATTESTATION_ENV,
  ENV,
  HAND_OVER_VARIABLES,
  MINTED_KEY_PREFIX,
  REPORT_ENV,
  isHandOver,
} from '../../../conformance/env.ts';
import { SETTING_VARIABLES } from '../../../conformance/settings.ts';
import { mintedVariable } from '../../../conformance/deployment/key-minting.ts';
import {
  REPO_ROOT,
  referenceTargetOn,
  runConformance,
  type ConformanceRun,
} from '../../support/conformance-run.ts';
import { cleanEnv, runMain } from '../../support/reference-cli.ts';
import { compiledModule } from '../../support/compiled-kit.ts';
import { fixtureKeyEnvironment } from '../../../conformance/deployment/embedded-target.ts';
import { scratchDirectory } from '../../support/scratch.ts';

const FORGED_FINGERPRINT = Array.from({ length: 32 }, () => 'AB').join(':');
const FORGED_ISSUER = "C=US, O=Let's Encrypt, CN=R3";

/** A preflight that passed, over certificates of the forger's choosing, with HTTP/1.1 alone offered. */
const forgedPreflight = JSON.stringify({
  ok: true,
  blocking: [],
  unavailable: [],
  tls: [
    {
      field: 'baseUrl',
      host: 'api.tenant-a.localhost:8443',
      fingerprint256: FORGED_FINGERPRINT,
      subject: 'CN=api.tenant-a.localhost',
      issuer: FORGED_ISSUER,
      validFrom: 'Jan  1 00:00:00 2026 GMT',
      validTo: 'Jan  1 00:00:00 2027 GMT',
      protocols: ['HTTP/1.1'],
    },
  ],
});

test('every variable of the run is either a setting a user may give or a hand-over', () => {
  const all = [...Object.values(ENV), ...Object.values(REPORT_ENV), ...Object.values(ATTESTATION_ENV)];
  // REFERENCE_CERT_DIR is the reference server's own setting (where its certificates are).
  const unclassified = all.filter(
    (name) => !SETTING_VARIABLES.includes(name) && !isHandOver(name) && name !== ENV.referenceCertDir,
  );
  assert.deepEqual(unclassified, [], 'a new variable is a setting (settings.ts) or a hand-over (env.ts)');
  assert.equal(isHandOver(mintedVariable('fullAccess')), true);
  assert.ok(mintedVariable('readOnly').startsWith(MINTED_KEY_PREFIX));
});

describe('`run` with every hand-over variable set in its environment', () => {
  let work: string;
  let run: ConformanceRun;
  let handOvers: Record<string, string>;
  before(async () => {
    work = scratchDirectory('hand-overs-');
    const state = join(work, 'state');
    mkdirSync(state);
    const forgedState = JSON.stringify({ env: { [ENV.preflight]: forgedPreflight }, minted: [] });
    writeFileSync(join(state, 'state.json'), forgedState);
    const shards = join(work, 'shards.json');
    writeFileSync(shards, JSON.stringify([{ shard: '1/1', target: { name: 'forged' }, tls: [] }]));
    handOvers = {
      // Settings of the forger's choosing, as if an entry point had resolved them: HTTP/2 alone, lenient.
      [ENV.runSettings]: JSON.stringify({ protocols: ['h2'], profile: 'default', failOnIncomplete: false }),
      [ENV.preflight]: forgedPreflight,
      [ENV.protocolsNotOffered]: 'h2',
      [ENV.shardRecords]: shards,
      [ENV.outcomeFile]: join(work, 'outcome.json'),
      [ENV.projectState]: state,
      [ENV.answerWatchFile]: join(work, 'answer-watch'),
      [ENV.trafficFile]: join(work, 'traffic.json'),
      [ENV.embeddedInWorker]: '0',
      [ENV.referenceHttpsPort]: '1',
      [ENV.referenceHttpPort]: '1',
      [mintedVariable('fullAccess')]: 'forged-minted-key',
      // The mutation batch's own: a list of no variant would register no rule of the run.
      [ENV.batchVariants]: '[]',
      [ENV.batchPlan]: join(work, 'plan.json'),
    };
    // The embedded reference, one rule, HTTP/1.1 only, strict: the reference offers HTTP/2 too.
    run = await runConformance(
      ['--profile', 'strict', '--protocols', 'h1', '--grep', 'TRANSPORT-HTTPS-CERT'],
      handOvers,
    );
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  test('the test sets every hand-over variable', () => {
    for (const name of HAND_OVER_VARIABLES) assert.ok(name in handOvers, name);
  });

  test('the run warns that it ignored each, by name', () => {
    const warning = run.stderr.split('\n').find((line) => line.startsWith('Warning: ignored '));
    assert.ok(warning, run.stderr);
    for (const name of Object.keys(handOvers)) assert.ok(warning.includes(name), name);
  });

  test("the report has the run's own preflight: the reference's certificate, its HTTP/2 offer", () => {
    const report = run.report;
    assert.ok(report, run.stderr);
    assert.equal(report.verdict, 'INCOMPLETE', 'strict, HTTP/1.1 of HTTP/1.1 and HTTP/2: partial');
    const tls = report.tls ?? [];
    assert.ok(tls.length > 0);
    for (const host of tls) {
      assert.notEqual(host.fingerprint256, FORGED_FINGERPRINT);
      assert.notEqual(host.issuer, FORGED_ISSUER);
    }
    assert.ok(report.scope?.protocolsOffered.includes('HTTP/2'));
    assert.ok(report.scope?.partial.some((reason) => reason.startsWith('HTTP/2 was not checked')));
    assert.equal(report.shards, undefined, 'a run is no merge');
    const outcome = report.rules.find((rule) => rule.id === 'TRANSPORT-HTTPS-CERT');
    assert.equal(outcome?.verdict, 'pass', 'the rule ran against the reference the run started');
  });

  test('no file the hand-overs named was written or read as the run', () => {
    assert.equal(existsSync(join(work, 'outcome.json')), false);
    assert.equal(existsSync(join(work, 'answer-watch')), false);
    assert.equal(existsSync(join(work, 'traffic.json')), false);
    const state = JSON.parse(readFileSync(join(work, 'state', 'state.json'), 'utf8')) as {
      env: Record<string, string>;
    };
    assert.equal(state.env[ENV.preflight], forgedPreflight, 'the forged state directory was not the run’s');
  });
});

test('`merge` ignores shard records and an outcome file from its environment', async () => {
  const work = scratchDirectory('hand-overs-merge-');
  try {
    const shards = join(work, 'shards.json');
    writeFileSync(shards, '[]');
    const empty = join(work, 'empty');
    mkdirSync(empty);
    const refused = await runMain(
      ['merge', '--reports', join(work, 'r'), empty],
      cleanEnv({ [ENV.shardRecords]: shards, [ENV.outcomeFile]: join(work, 'outcome.json') }),
      { timeoutMs: 120_000 },
    );
    assert.match(refused.stderr, new RegExp(`Warning: ignored ${ENV.outcomeFile}, ${ENV.shardRecords} `));
    assert.equal(existsSync(join(work, 'outcome.json')), false);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test("a team's config: conformanceProjects in the runner ignores a state directory from the environment", () => {
  const work = scratchDirectory('hand-overs-config-');
  try {
    const target = join(work, 'target.json');
    writeFileSync(target, JSON.stringify(referenceTargetOn({ https: 9443, http: 9080 }, { name: 'team' })));
    const script = `
      import { conformanceProjects } from ${JSON.stringify(compiledModule('library/playwright'))};
      const projects = conformanceProjects({ target: { file: ${JSON.stringify(target)} }, protocols: ['h1'] });
      const again = conformanceProjects({ target: { file: ${JSON.stringify(target)} }, protocols: ['h1'], name: 'again' });
      console.log(JSON.stringify([projects, again].map((set) => set.at(-1).use.runEnvironment)));`;
    const forged = join(work, 'forged-state');
    mkdirSync(forged);
    const read = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: REPO_ROOT,
      env: cleanEnv({
        ...fixtureKeyEnvironment(),
        [ENV.projectState]: forged,
        [ENV.preflight]: forgedPreflight,
      }),
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(read.status, 0, read.stderr);
    const environments = JSON.parse(read.stdout.trim().split('\n').at(-1) ?? '') as Record<string, string>[];
    for (const environment of environments) {
      assert.notEqual(environment[ENV.projectState], forged);
      assert.equal(environment[ENV.preflight], undefined);
    }
    // Called twice in one config: one run, one state directory, and one warning.
    assert.equal(environments[0]?.[ENV.projectState], environments[1]?.[ENV.projectState]);
    assert.equal(read.stderr.match(/Warning: ignored /g)?.length, 1, read.stderr);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
