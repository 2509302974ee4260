// A team's Playwright project running the kit's rules beside its own test, as CI would: its config
// passes against the embedded reference, --project, --grep and --shard select rules as for any
// project, a target by URL lacking a key is INCOMPLETE, shards' blob reports merge, and a faulty
// variant fails its rule.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RULES } from '../../conformance/catalog/rules.ts';
import type { ConformanceReport } from '../../schemas/generated/conformance-report.ts';
import { referenceTargetOn } from '../support/conformance-run.ts';
import { cleanEnv } from '../support/reference-cli.ts';
import { installed, kit, startServe, type InstalledKit } from './installed-kit.ts';
import { stopped } from '../support/process-group.ts';

/** The team's own playwright.config.ts, with the kit's projects: selected, sharded, merged, failing. */
export function teamPlaywrightTests(installedKit: () => InstalledKit, teamFolder: () => string): void {
  let faulty: ChildProcess | undefined;
  after(async () => {
    if (faulty) await stopped(faulty);
  });

  test('its own playwright.config.ts: its test and every rule pass against the embedded reference (exit 0)', async () => {
    const team = teamFolder();
    const result = await installed(team, 'playwright', ['test']);
    assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`);
    const json = readFileSync(join(team, 'results.json'), 'utf8');
    assert.match(json, /our API lists customers/);
    assert.match(json, /TRANSPORT-HTTPS-CERT/);
    assert.match(result.stdout, /VERDICT: CONFORMANT/);
    // The team's own test is said after the verdict, which never stands alone over the run.
    assert.match(result.stdout, /VERDICT: CONFORMANT[\s\S]*\nYour own tests: 1 ran, none failed\.\n/);
    // The kit's report states the options the team gave conformanceProjects (maxRetries: 2, list
    // bounds 5 pages and 500 records), from the installed package's declarations.
    const kitReport = JSON.parse(
      readFileSync(join(team, 'conformance-reports', 'conformance.json'), 'utf8'),
    ) as ConformanceReport;
    assert.equal(kitReport.options?.maxRetries, 2);
    assert.equal(kitReport.scope?.settings?.maxListPages, 5);
    assert.equal(kitReport.scope?.settings?.maxListRecords, 500);
    // The config and `run` judge alike: `run --target` (the installed commands' test, earlier in
    // this suite) checked the served reference, the same server as the embedded one, over the
    // protocols it asked the target for; the config over the HTTP/1.1 its `protocols` names (a
    // config cannot ask: README). Over HTTP/1.1, checked by both, every rule's verdict is the same.
    const byRun = JSON.parse(
      readFileSync(join(installedKit().project, 'reports', 'conformance.json'), 'utf8'),
    ) as ConformanceReport;
    assert.deepEqual(byRun.scope?.protocolsChecked, ['HTTP/1.1', 'HTTP/2']);
    assert.deepEqual(kitReport.scope?.protocolsChecked, ['HTTP/1.1']);
    const overHttp1 = (report: ConformanceReport): Record<string, string> =>
      Object.fromEntries(report.rules.map((rule) => [rule.id, rule.protocols?.['HTTP/1.1'] ?? rule.verdict]));
    assert.equal(Object.keys(overHttp1(kitReport)).length, RULES.length);
    assert.deepEqual(overHttp1(kitReport), overHttp1(byRun));
    const runOverHttp1 = byRun.protocols?.find((protocol) => protocol.name === 'HTTP/1.1')?.verdict;
    assert.equal(runOverHttp1, kitReport.verdict);
  });

  test('--shard splits the rules between machines: each shard runs a part, together all of them', async () => {
    const team = teamFolder();
    const shards = [];
    for (const shard of ['1/2', '2/2']) {
      // A machine of its own per shard: nothing of the other shard's run left in the project.
      for (const folder of ['blob-report', 'conformance-reports'])
        rmSync(join(team, folder), { recursive: true, force: true });
      // With the blob reporter, as a CI job whose shards are merged afterwards (the merge's test).
      const result = await installed(
        team,
        'playwright',
        ['test', '--shard', shard],
        cleanEnv({ BLOB_REPORT: '1' }),
      );
      assert.equal(result.code, 0, `${shard}: ${result.stdout}\n${result.stderr}`);
      // A rule skipped as not applicable (AUTH-COOKIE-NOT-CREDENTIAL: the reference sets no cookie)
      // was still this shard's.
      const json = JSON.parse(readFileSync(join(team, 'results.json'), 'utf8')) as PlaywrightJson;
      const ran = titlesWhere(json, (status) => status !== 'interrupted');
      shards.push(ran.filter((title) => /^(MUST|HTTP|ADVISORY) /.test(title)));
      // The shard's artifact: the blob reporter's folder and the shard's record, which
      // conformanceReporter leaves in its outputDir's blob/.
      const artifact = join(team, 'artifacts', `shard-${shard.replace('/', '-of-')}`);
      for (const folder of ['blob-report', join('conformance-reports', 'blob')]) {
        mkdirSync(join(artifact, folder), { recursive: true });
        for (const name of readdirSync(join(team, folder)))
          copyFileSync(join(team, folder, name), join(artifact, folder, name));
      }
    }
    const [first = [], second = []] = shards;
    assert.ok(
      first.length > 0 && second.length > 0,
      `both shards ran rules: ${first.length}, ${second.length}`,
    );
    assert.deepEqual(
      first.filter((title) => second.includes(title)),
      [],
      'no rule ran in both shards',
    );
    assert.equal(new Set([...first, ...second]).size, RULES.length, 'together, every rule of the catalog');
  });

  test('--project and --grep select the rules as for any project, the team’s own test left out; a { baseUrl } target lacking a key: INCOMPLETE, exit 0; with failOnIncomplete exit 1', async () => {
    const { project, ports, keys } = installedKit();
    const team = teamFolder();
    const byUrl = {
      URL_TARGET: `https://acme.api.localhost:${ports.https}/v1`,
      URL_TARGET_CA: join(project, '.certs', 'ca.crt'),
      CONFORMANCE_KEY_FULL_ACCESS: keys.REFERENCE_KEY_ACME_PROD_FULL ?? '',
    };
    // A rule its one key lets it check, and one it needs a Read Only key for.
    const selected = [
      'test',
      '--project',
      'conformance',
      '--grep',
      'KEY-VALID-SERVED:|PERM-READ-ONLY-READS:',
    ];
    for (const [fail, expected] of [
      [false, 0],
      [true, 1],
    ] as const) {
      const env = cleanEnv({ ...byUrl, ...(fail ? { FAIL_ON_INCOMPLETE: '1' } : {}) });
      const result = await installed(team, 'playwright', [...selected], env);
      assert.equal(result.code, expected, `failOnIncomplete ${fail}: ${result.stdout}\n${result.stderr}`);
      // --project and --grep chose these two rules, passed or skipped, and no other rule (the
      // set-up project runs as their dependency); the team's own test was left out.
      const listed = titlesWhere(
        JSON.parse(readFileSync(join(team, 'results.json'), 'utf8')) as PlaywrightJson,
        () => true,
      );
      assert.ok(!listed.some((title) => title.includes('our API lists customers')), listed.join('\n'));
      assert.deepEqual(
        listed
          .filter((title) => /^(MUST|HTTP|ADVISORY) /.test(title))
          .map((title) => title.split(':')[0])
          .sort(),
        RULES.filter((rule) => ['KEY-VALID-SERVED', 'PERM-READ-ONLY-READS'].includes(rule.id))
          .map((rule) => `${rule.level} ${rule.id}`)
          .sort(),
        listed.join('\n'),
      );
      const report = JSON.parse(
        readFileSync(join(team, 'conformance-reports', 'conformance.json'), 'utf8'),
      ) as ConformanceReport;
      assert.equal(report.verdict, 'INCOMPLETE');
      assert.equal(report.options?.failOnIncomplete, fail);
      const verdicts = Object.fromEntries(report.rules.map((rule) => [rule.id, rule]));
      assert.equal(verdicts['KEY-VALID-SERVED']?.verdict, 'pass');
      const notEvaluated = verdicts['PERM-READ-ONLY-READS'];
      assert.equal(notEvaluated?.verdict, 'not-evaluated');
      // What the team configured: a target by URL, whose keys are variables.
      assert.match(notEvaluated?.message ?? '', /CONFORMANCE_KEY_READ_ONLY is not set/);
      assert.doesNotMatch(notEvaluated?.message ?? '', /target file/);
    }
  });

  test("merge: the blob reports the team's own config wrote, one folder per shard as CI downloads them", async () => {
    const team = teamFolder();
    // The artifacts of the sharded run above (its blob reports and shard records, one folder per
    // shard): the whole catalog and the team's own test, merged.
    const merged = await kit(team, ['merge', '--reports', 'merged', 'artifacts']);
    assert.equal(merged.code, 0, `${merged.stdout}\n${merged.stderr}`);
    assert.doesNotMatch(merged.stderr, /\n\s+at /);
    const report = JSON.parse(
      readFileSync(join(team, 'merged', 'conformance.json'), 'utf8'),
    ) as ConformanceReport;
    const verdicts = Object.fromEntries(report.rules.map((rule) => [rule.id, rule.verdict]));
    assert.equal(verdicts['AUTH-MISSING-HEADER'], 'pass');
    assert.equal(verdicts['KEY-UNKNOWN-REJECTED'], 'pass');
    assert.equal(report.rules.length, RULES.length, 'every rule of both shards, merged');

    // A folder without any blob report: what to pass, not Playwright's stack trace.
    mkdirSync(join(team, 'no-blobs'));
    const empty = await kit(team, ['merge', 'no-blobs']);
    assert.equal(empty.code, 2, empty.stderr);
    assert.match(empty.stderr, /No blob report \(a \.zip file\) in no-blobs/);
    assert.match(empty.stderr, /blob-report\//);
    assert.doesNotMatch(empty.stderr, /\n\s+at /);
  });

  test('against a faulty variant: exit 1, the failing rule in its own JSON report', async () => {
    const { keys } = installedKit();
    const team = teamFolder();
    const started = await startServe(team, [
      '--fault',
      'missing-header-answered-invalid-key',
      '--data-dir',
      'off',
    ]);
    faulty = started.child;
    const target = referenceTargetOn(started.ports, {
      name: 'faulty variant',
      caFile: '.certs/ca.crt',
      hosts: { '*.localhost': '127.0.0.1' },
    });
    writeFileSync(join(team, 'faulty.json'), JSON.stringify(target, null, 2));
    // The rule the fault breaks and the team's own test: the assertions below are about these
    // two (the failure reported, the team's test not taken down with it), and a run of the whole
    // catalog against the variant, its failing rule retried in new workers, cost twice the CPU.
    const result = await installed(
      team,
      'playwright',
      ['test', '--grep', 'AUTH-MISSING-HEADER:|our API lists customers'],
      cleanEnv({ ...keys, FAULTY_TARGET: 'faulty.json' }),
    );
    assert.equal(result.code, 1, `${result.stdout}\n${result.stderr}`);
    const report = JSON.parse(readFileSync(join(team, 'results.json'), 'utf8')) as PlaywrightJson;
    const failed = failedTitles(report);
    assert.ok(
      failed.some((title) => title.includes('AUTH-MISSING-HEADER:')),
      failed.join('\n'),
    );
    assert.ok(!failed.some((title) => title.includes('our API lists customers')));
    assert.ok(
      ranTitles(report).some((title) => title.includes('our API lists customers')),
      'the team’s own test ran beside the failing rule',
    );
  });
}

interface PlaywrightJsonSuite {
  specs?: { title: string; tests: { status: string }[] }[];
  suites?: PlaywrightJsonSuite[];
}
type PlaywrightJson = PlaywrightJsonSuite;

/** The titles of the tests Playwright's JSON reporter counts as unexpected (failed). */
function failedTitles(suite: PlaywrightJsonSuite): string[] {
  return titlesWhere(suite, (status) => status === 'unexpected');
}

/** The titles of the tests that ran (passed or failed), not skipped. */
function ranTitles(suite: PlaywrightJsonSuite): string[] {
  return titlesWhere(suite, (status) => status === 'expected' || status === 'unexpected');
}

function titlesWhere(suite: PlaywrightJsonSuite, wanted: (status: string) => boolean): string[] {
  return [
    ...(suite.specs ?? [])
      .filter((spec) => spec.tests.some((test) => wanted(test.status)))
      .map((spec) => spec.title),
    ...(suite.suites ?? []).flatMap((child) => titlesWhere(child, wanted)),
  ];
}
