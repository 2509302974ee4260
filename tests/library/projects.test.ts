// conformanceProjects() (library/projects.ts): the projects a team's config gets, their options
// checked when the config is read, and a reporter that never decides the run's status.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { conformanceProjects, conformanceReporter } from '../../library/playwright.ts';
import ConformanceReporter from '../../conformance/run/reporter.ts';
import { ENV } from '../../conformance/env.ts';
import type { RunSettings } from '../../conformance/settings.ts';
import type { FullConfig, FullResult, Suite, TestCase, TestResult } from '@playwright/test/reporter';
import { writeProjectState } from '../../conformance/run/project-state.ts';
import { mintedVariable } from '../../conformance/deployment/key-minting.ts';
import { referenceTargetOn } from '../support/conformance-run.ts';
import { fixtureKeyEnvironment } from '../../conformance/deployment/embedded-target.ts';
import { ensureCertificates } from '../../reference-server/listeners/certificates.ts';
import { URL_TARGET_FILE } from '../../conformance/deployment/url-target.ts';
import { scratchDirectory } from '../support/scratch.ts';
import { declareTarget, TargetError, type TargetDeclaration } from '../../conformance/deployment/target.ts';

test('a target file: a set-up project, a rule project per protocol depending on it; a teardown project only for minted keys', () => {
  const work = scratchDirectory('projects-test-');
  const saved = { ...process.env };
  try {
    Object.assign(process.env, fixtureKeyEnvironment(), { TEST_ADMIN_TOKEN: 'x'.repeat(40) });
    const file = join(work, 'target.json');
    writeFileSync(file, JSON.stringify(referenceTargetOn({ https: 9443, http: 9080 }, { name: 'on file' })));
    const projects = conformanceProjects({
      target: { file },
      protocols: ['h1', 'h2'],
      maxRps: 5,
      name: 'rules',
    });
    assert.deepEqual(
      projects.map((project) => project.name),
      ['rules set-up', 'rules HTTP/1.1', 'rules HTTP/2'],
    );
    assert.equal(projects[0]?.teardown, undefined, 'nothing minted, nothing to undo');
    for (const project of projects.slice(1)) assert.deepEqual(project.dependencies, ['rules set-up']);
    const use = projects[1]?.use as { runSettings: RunSettings; protocol: string };
    assert.equal(use.protocol, 'h1');
    assert.equal(use.runSettings.maxRps, 5);
    assert.deepEqual(use.runSettings.protocols, ['h1', 'h2']);

    const minting = join(work, 'minting.json');
    writeFileSync(
      minting,
      JSON.stringify({
        ...referenceTargetOn({ https: 9443, http: 9080 }, { name: 'minted' }),
        keyMinting: { adminBaseUrl: 'https://admin.localhost:9443/v1', adminToken: 'TEST_ADMIN_TOKEN' },
      }),
    );
    const withTeardown = conformanceProjects({ target: { file: minting }, protocols: ['h1'], name: 'rules' });
    assert.deepEqual(
      withTeardown.map((project) => project.name),
      ['rules set-up', 'rules teardown', 'rules'],
    );
    assert.equal(withTeardown[0]?.teardown, 'rules teardown');
  } finally {
    process.env = saved;
    rmSync(work, { recursive: true, force: true });
  }
});

test('a target file whose keys are not exported: the config reads, the set-up project says which are missing', () => {
  const work = scratchDirectory('projects-test-');
  const saved = { ...process.env };
  try {
    for (const name of Object.keys(fixtureKeyEnvironment())) delete process.env[name];
    const file = join(work, 'target.json');
    writeFileSync(file, JSON.stringify(referenceTargetOn({ https: 9443, http: 9080 }, { name: 'no keys' })));
    // A team's own project runs (`--project api`): reading the config throws nothing.
    const projects = conformanceProjects({ target: { file }, protocols: ['h1'], name: 'rules' });
    const setUp = projects.find((project) => project.name === 'rules set-up');
    const declared = (setUp?.use as { declaredTarget: TargetDeclaration }).declaredTarget;
    assert.match(declared.keysMissing ?? '', /REFERENCE_KEY_ACME_PROD_FULL is not set/);
    assert.deepEqual(declared.credentialVariables, {});
    // `run --target` still refuses the file when it is read (exit 2, tests/cli/).
    assert.throws(() => declareTarget(file, process.env), TargetError);
    // With the keys exported, nothing is missing.
    Object.assign(process.env, fixtureKeyEnvironment());
    const withKeys = conformanceProjects({ target: { file }, protocols: ['h1'], name: 'keyed' });
    const keyed = (withKeys[0]?.use as { declaredTarget: TargetDeclaration }).declaredTarget;
    assert.equal(keyed.keysMissing, undefined);
  } finally {
    process.env = saved;
    rmSync(work, { recursive: true, force: true });
  }
});

test("the run's state directory starts with its traffic file, whatever the target; a user's CA joins the target's there", async () => {
  const work = scratchDirectory('projects-test-');
  const saved = { ...process.env };
  const stateOf = (options: Parameters<typeof conformanceProjects>[0]): string[] => {
    // A new run each time: the runner of a config makes its state directory.
    delete process.env[ENV.projectState];
    conformanceProjects(options);
    return readdirSync(process.env[ENV.projectState] ?? '').sort();
  };
  try {
    Object.assign(process.env, fixtureKeyEnvironment());
    const targetCa = (await ensureCertificates(join(work, 'target-certs'), 'localhost')).caPath;
    const userCa = (await ensureCertificates(join(work, 'user-certs'), 'corp.example')).caPath;
    process.env.NODE_EXTRA_CA_CERTS = userCa;
    const file = join(work, 'target.json');
    writeFileSync(
      file,
      JSON.stringify(referenceTargetOn({ https: 9443, http: 9080 }, { name: 'on file', caFile: targetCa })),
    );
    assert.deepEqual(stateOf({ target: { file } }), ['ca-bundle.pem', 'traffic.json']);
    const bundle = process.env.NODE_EXTRA_CA_CERTS;
    assert.equal(bundle, join(process.env[ENV.projectState] ?? '', 'ca-bundle.pem'));
    assert.equal(
      readFileSync(bundle, 'utf8'),
      `${readFileSync(userCa, 'utf8').trim()}\n${readFileSync(targetCa, 'utf8')}`,
    );
    // A target by URL writes its target file in the state directory before the projects are made.
    process.env.NODE_EXTRA_CA_CERTS = userCa;
    assert.deepEqual(
      stateOf({ target: { baseUrl: 'https://acme.api.example.com/v1', caFile: targetCa } }),
      ['ca-bundle.pem', URL_TARGET_FILE, 'traffic.json'].sort(),
    );
  } finally {
    process.env = saved;
    rmSync(work, { recursive: true, force: true });
  }
});

test('a bad option is refused when the config is read, saying which and why', () => {
  assert.throws(
    () => conformanceProjects({ maxRps: -1 }),
    /conformanceProjects: Invalid maxRps "-1": give a number of requests per second from 0\.1 to 10000/,
  );
  // The bounds of the run command's flags: a time-out the run would refuse is refused here too.
  assert.throws(
    () => conformanceProjects({ requestTimeoutSeconds: 700 }),
    /Invalid requestTimeoutSeconds "700": give a number of seconds, more than 0 and at most 600/,
  );
  assert.throws(
    () => conformanceProjects({ protocols: ['h3' as 'h1'] }),
    /protocols must be h1, h2 or both, not h3/,
  );
  assert.throws(
    () => conformanceProjects({ profile: 'lenient' as 'strict' }),
    /profile must be default or strict, not lenient/,
  );
});

test('failOnIncomplete reaches the run settings of every rule project, as run --fail-on-incomplete does', () => {
  const saved = { ...process.env };
  try {
    const projects = conformanceProjects({ failOnIncomplete: true });
    const rules = projects.filter((project) => project.dependencies !== undefined);
    assert.ok(rules.length > 0);
    for (const project of rules) {
      const use = project.use as { runSettings: RunSettings };
      assert.equal(use.runSettings.failOnIncomplete, true, project.name);
    }
    const without = conformanceProjects({}).find((project) => project.dependencies !== undefined);
    assert.equal((without?.use as { runSettings: RunSettings }).runSettings.failOnIncomplete, false);
    assert.throws(
      () => conformanceProjects({ failOnIncomplete: 'yes' as unknown as boolean }),
      /failOnIncomplete must be true or false, not yes/,
    );
  } finally {
    process.env = saved;
  }
});

test("the kit's reporter in a team's config never sets the run's status; under run it does", async () => {
  const [file, options] = conformanceReporter({ outputDir: 'somewhere' }) as [
    string,
    { decidesStatus: boolean },
  ];
  assert.match(file, /conformance[/\\]run[/\\]reporter\.(ts|js)$/);
  assert.equal(options.decidesStatus, false);
  const work = scratchDirectory('reporter-status-');
  try {
    const result = { status: 'passed', startTime: new Date(), duration: 1 } as FullResult;
    const team = new ConformanceReporter({ outputDir: join(work, 'team'), decidesStatus: false });
    assert.equal(await team.onEnd(result), undefined);
    const run = new ConformanceReporter({ outputDir: join(work, 'run') });
    assert.deepEqual(await run.onEnd(result), { status: 'passed' });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test("the run's reporter masks the keys its set-up project minted, in what the set-up prints", () => {
  const work = scratchDirectory('reporter-minted-');
  const saved = { ...process.env };
  const written: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  try {
    process.env.TEST_ADMIN_TOKEN = 'x'.repeat(40);
    const file = join(work, 'minting.json');
    writeFileSync(
      file,
      JSON.stringify({
        baseUrl: 'https://acme.api.localhost:9443/v1',
        keyMinting: { adminBaseUrl: 'https://admin.localhost:9443/v1', adminToken: 'TEST_ADMIN_TOKEN' },
      }),
    );
    const projects = conformanceProjects({ target: { file }, protocols: ['h1'], name: 'rules' });
    const setUp = projects[0];
    assert.ok(setUp);
    const runEnvironment = (projects[2]?.use as { runEnvironment: Record<string, string> }).runEnvironment;
    const reporter = new ConformanceReporter({ outputDir: join(work, 'reports') });
    reporter.onBegin(
      { projects, metadata: {} } as unknown as FullConfig,
      { allTests: () => [] } as unknown as Suite,
    );
    const setUpTest = { parent: { project: () => setUp }, annotations: [] } as unknown as TestCase;
    process.stdout.write = (chunk: string) => {
      written.push(chunk);
      return true;
    };
    // The set-up project prints the preflight's findings before it mints anything.
    reporter.onStdOut('Preflight: every declared URL answers over verified TLS.\n', setUpTest);
    // Then it mints, leaves its state (a key only the run knows), and its test ends.
    const minted = `mbk_prod_${'M'.repeat(32)}`;
    writeProjectState(
      { env: { [mintedVariable('fullAccess')]: minted }, minted: [] },
      { [ENV.projectState]: runEnvironment[ENV.projectState] },
    );
    const passed = { status: 'passed', errors: [], stdout: [], stderr: [], attachments: [], annotations: [] };
    reporter.onTestEnd(setUpTest, passed as unknown as TestResult);
    reporter.onStdOut(`minted ${minted}\n`, setUpTest);
  } finally {
    process.stdout.write = write;
    process.env = saved;
    rmSync(work, { recursive: true, force: true });
  }
  assert.equal(written.length, 2, "the set-up project's output is shown");
  assert.ok(!written[1]?.includes('M'.repeat(32)), written[1]);
});
