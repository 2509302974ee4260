// A mistake in the user's set-up is never a verdict about the target: each row is a set-up mistake
// a new user makes, with the stage the preflight must name, the verdict, the exit code, and a bound
// on the time it may take (the suite must not wait out every rule against a hung target).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import {
  connect as connectTcp,
  createServer as createTcpServer,
  type AddressInfo,
  type Server,
} from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { join } from 'node:path';
import { once } from 'node:events';
import { fixtureKeyEnvironment } from '../../../conformance/deployment/embedded-target.ts';
import type { RunningReferenceServer } from '../../../reference-server/server.ts';
import { startTestServer } from '../../support/reference-client.ts';
import { ensureCertificates } from '../../../reference-server/listeners/certificates.ts';
import { runMain } from '../../support/reference-cli.ts';
import { runConformance, type ConformanceRun } from '../../support/conformance-run.ts';
import { preflightOf } from '../../support/preflight-as-set-up.ts';
import type { PreflightProblem } from '../../../conformance/deployment/preflight.ts';
import { preflightSummary } from '../../../conformance/run/preflight-state.ts';
import { scratchDirectory } from '../../support/scratch.ts';
import { startIndependentServer, type IndependentServer } from '../../independent-implementation/server.ts';

/** The bound for every set-up mistake: an answer in under a minute. */
const TIME_BOUND_MS = 60_000;
const HOSTS = { '*.localhost': '127.0.0.1' };
const keys = fixtureKeyEnvironment();

interface Row {
  mistake: string;
  target: () => object;
  stage: string;
  /** What the stage's problem must say, and the fix it must give. */
  problem: RegExp;
  fix: RegExp;
  /**
   * Also run end to end (`run --target`). What the run does with a failed preflight (SETUP ERROR,
   * exit 3, no rule, the stage printed, in bounded time) is one path whatever the stage: it is
   * proved on a mistake found before any connection (the target file), one refused and one that
   * hangs. Every row's own decision (stage, problem, fix) is the preflight's, checked in process as
   * the set-up project makes it: a run costs a Playwright runner and a worker to say the same.
   */
  endToEnd?: true;
}

// The rows run side by side: each waits mostly on a time-out, not on the machine.
describe(
  'set-up mistakes: SETUP ERROR naming the stage and the fix, exit 3, in bounded time',
  { concurrency: 4 },
  () => {
    const work = scratchDirectory('conformance-setup-errors-');
    let server: RunningReferenceServer;
    let hungTls: Server;
    let hungTcp: Server;
    let otherCaFile: string;
    const closedPort = (): number => 9; // discard: nothing listens on it here

    before(async () => {
      const reference = await startTestServer();
      server = reference.server;
      // A certificate valid for the names, so that only the silence after the handshake is wrong.
      const certificates = await ensureCertificates(reference.certDir, 'localhost');
      hungTls = createTlsServer({ key: certificates.key, cert: certificates.cert }, () => {
        // Accepts TLS, reads the request, never answers.
      });
      hungTcp = createTcpServer(() => {
        // Accepts TCP, never speaks TLS.
      });
      for (const listener of [hungTls, hungTcp]) {
        listener.listen(0, '127.0.0.1');
        await once(listener, 'listening');
      }
      otherCaFile = (await ensureCertificates(join(work, 'other-ca'), 'localhost')).caPath;
    });

    after(async () => {
      await server.close();
      for (const listener of [hungTls, hungTcp]) listener.close();
    });

    const portOf = (listener: Server): number => (listener.address() as AddressInfo).port;
    const base = (port: number | string) => `https://acme.api.localhost:${port}/v1`;
    const withKey = { credentials: { fullAccess: 'REFERENCE_KEY_ACME_PROD_FULL' } };

    const rows: Row[] = [
      {
        mistake: 'nothing listening at baseUrl',
        endToEnd: true,
        target: () => ({ baseUrl: base(closedPort()), hosts: HOSTS, caFile: server.caPath, ...withKey }),
        stage: 'connect',
        problem: /ECONNREFUSED/,
        fix: /listening on port 9/,
      },
      {
        mistake: 'hosts maps the names to an address where nothing listens',
        target: () => ({
          baseUrl: base(server.httpsPort),
          hosts: { '*.localhost': '127.0.0.2' },
          caFile: server.caPath,
          ...withKey,
        }),
        stage: 'connect',
        problem: /127\.0\.0\.2/,
        fix: /"hosts" maps acme\.api\.localhost to the right address/,
      },
      {
        mistake: 'caFile missing on disk',
        endToEnd: true,
        target: () => ({
          baseUrl: base(server.httpsPort),
          hosts: HOSTS,
          caFile: 'no-such-ca.pem',
          ...withKey,
        }),
        stage: 'target file',
        problem: /no-such-ca\.pem cannot be read \(ENOENT\)/,
        fix: /set "caFile"/,
      },
      {
        mistake: 'caFile that holds no certificate',
        target: () => ({ baseUrl: base(server.httpsPort), hosts: HOSTS, caFile: 'not-a-ca.pem', ...withKey }),
        stage: 'target file',
        problem: /holds no PEM certificate/,
        fix: /set "caFile"/,
      },
      {
        mistake: 'certificate not trusted: no caFile',
        target: () => ({ baseUrl: base(server.httpsPort), hosts: HOSTS, ...withKey }),
        stage: 'TLS',
        problem: /untrusted chain/,
        fix: /set "caFile" in the target file to the PEM of that CA/,
      },
      {
        mistake: 'certificate not trusted: the wrong caFile',
        target: () => ({ baseUrl: base(server.httpsPort), hosts: HOSTS, caFile: otherCaFile, ...withKey }),
        stage: 'TLS',
        problem: /untrusted chain/,
        fix: /caFile of the target file is not the CA that signed this certificate/,
      },
      {
        mistake: 'target accepts TLS and never answers',
        endToEnd: true,
        target: () => ({ baseUrl: base(portOf(hungTls)), hosts: HOSTS, caFile: server.caPath, ...withKey }),
        stage: 'HTTP',
        problem: /no HTTP answer .*nothing within 10 s/,
        fix: /accepts connections but never answers/,
      },
      {
        mistake: 'target accepts TCP and never handshakes',
        target: () => ({ baseUrl: base(portOf(hungTcp)), hosts: HOSTS, caFile: server.caPath, ...withKey }),
        stage: 'TLS',
        problem: /no TLS handshake .* within 10 s/,
        fix: /serves HTTPS/,
      },
    ];

    test('--preflight-only: exit 0 when the target can be reached, 3 naming the stage when not; no report either way', async () => {
      const reachable = join(work, 'reachable.json');
      writeFileSync(
        reachable,
        JSON.stringify({ baseUrl: base(server.httpsPort), hosts: HOSTS, caFile: server.caPath }),
      );
      const passed = await runConformance(['--target', reachable, '--preflight-only'], keys);
      assert.equal(passed.exitCode, 0, passed.stderr);
      assert.match(passed.stdout, /Preflight passed: the target can be reached/);
      assert.equal(passed.report, undefined, 'no report written');
      const down = join(work, 'down.json');
      writeFileSync(
        down,
        JSON.stringify({ baseUrl: base(closedPort()), hosts: HOSTS, caFile: server.caPath }),
      );
      const failed = await runConformance(['--target', down, '--preflight-only'], keys);
      assert.equal(failed.exitCode, 3, failed.stderr);
      assert.match(failed.stdout, /\[connect\] baseUrl https:\/\/acme\.api\.localhost:9\/v1/);
      assert.equal(failed.report, undefined, 'no report written');
    });

    for (const row of rows) {
      test(`${row.mistake}: the preflight's decision`, async () => {
        const file = writeRowTarget(row);
        const started = Date.now();
        const preflight = await preflightOf(file, keys);
        const elapsed = Date.now() - started;
        assert.equal(preflight.ok, false, 'the run cannot start');
        assertProblem(preflight.blocking[0], row);
        assert.match(preflightSummary(preflight), new RegExp(`^Preflight failed:\\n  \\[${row.stage}\\]`));
        assert.ok(elapsed < TIME_BOUND_MS, `took ${elapsed} ms, more than ${TIME_BOUND_MS} ms`);
      });
      if (row.endToEnd)
        test(`${row.mistake}: run --target`, async () => {
          const file = writeRowTarget(row);
          const started = Date.now();
          const run = await runConformance(['--target', file], keys, TIME_BOUND_MS * 2);
          const elapsed = Date.now() - started;
          assertSetupError(run, row);
          assert.ok(elapsed < TIME_BOUND_MS, `took ${elapsed} ms, more than ${TIME_BOUND_MS} ms`);
        });
    }

    function writeRowTarget(row: Row): string {
      writeFileSync(join(work, 'not-a-ca.pem'), 'this is not a certificate\n');
      const file = join(work, `${row.mistake.replace(/\W+/g, '-')}.json`);
      writeFileSync(file, JSON.stringify({ name: row.mistake, ...row.target() }));
      return file;
    }
  },
);

function assertProblem(problem: PreflightProblem | undefined, row: Row): void {
  assert.ok(problem, 'the preflight names the problem');
  assert.equal(problem.stage, row.stage);
  assert.match(problem.problem, row.problem);
  assert.match(problem.fix, row.fix);
}

function assertSetupError(run: ConformanceRun, row: Row): void {
  assert.equal(run.report?.verdict, 'SETUP ERROR', `${run.stdout}\n${run.stderr}`);
  assert.equal(run.exitCode, 3, run.stderr);
  assert.deepEqual(run.report?.rules, [], 'no rule verdicts after a failed preflight');
  assert.deepEqual(run.outcomes, [], 'no rule ran');
  assertProblem(run.report?.setupProblems?.[0], row);
  assert.match(run.stdout, new RegExp(`\\[${row.stage}\\]`));
  assert.match(run.stdout, /VERDICT: SETUP ERROR/);
}

describe('option mistakes: exit 2 with what to do', () => {
  for (const command of ['compare', 'keys', 'run', 'merge']) {
    test(`${command} --help prints its usage and exits 0; an unknown option exits 2`, async () => {
      const help = await runMain([command, '--help']);
      assert.equal(help.code, 0, help.stderr);
      assert.match(help.stdout, new RegExp(`Usage: tenant-auth-conformance ${command}`));
      assert.match(help.stdout, /[Ee]xit codes?:/);
      const bogus = await runMain([command, '--bogus-flag']);
      assert.equal(bogus.code, 2, bogus.stderr);
    });
  }

  test('an unknown option lists the valid ones', async () => {
    const run = await runConformance(['--bogus-flag']);
    assert.equal(run.exitCode, 2);
    assert.match(run.stderr, /Unknown option '--bogus-flag'/);
    assert.match(run.stderr, /Valid options: .*--target.*--preflight-only.*--grep/);
  });

  test('a bad --profile names the option, not the target file', async () => {
    const work = scratchDirectory('conformance-profile-');
    const file = join(work, 'good.json');
    writeFileSync(file, JSON.stringify({ baseUrl: 'https://acme.api.example.com/v1' }));
    const run = await runConformance(['--profile', 'bogus', '--target', file]);
    assert.equal(run.exitCode, 2);
    assert.match(run.stderr, /Invalid --profile "bogus": use default or strict/);
    assert.doesNotMatch(run.stderr, /good\.json/);
  });

  test('a hosts value with a port is a target-file error naming the field', async () => {
    const work = scratchDirectory('conformance-hosts-port-');
    const file = join(work, 'target.json');
    writeFileSync(
      file,
      JSON.stringify({
        baseUrl: 'https://acme.api.localhost:9443/v1',
        hosts: { '*.localhost': '127.0.0.1:9443' },
      }),
    );
    const run = await runConformance(['--target', file]);
    assert.equal(run.exitCode, 2);
    assert.match(
      run.stderr,
      /\$\.hosts\.\*\.localhost: must match format "ip" \(an IPv4 or IPv6 address, without a port/,
    );
  });
});

describe('after the preflight: no answer is an ERROR, never a failure', () => {
  const work = scratchDirectory('conformance-no-answer-');
  let server: RunningReferenceServer;
  let independent: IndependentServer;
  let fading: Server;

  before(async () => {
    server = (await startTestServer({})).server;
    // The deployment behind the port that fades: the independent implementation, which serves a
    // Host of any port (the reference server answers a Host naming another port than its own 421,
    // which the preflight rightly reports as a set-up error).
    independent = await startIndependentServer();
    // Forwards the preflight's one connection to it, then goes silent: a target that stops
    // answering once the run has started.
    let connections = 0;
    fading = createTcpServer((client) => {
      // The runner's ALPN handshake, then the preflight's and the rules' connection: no more.
      if (++connections > 2) return;
      const upstream = connectTcp(independent.port, '127.0.0.1');
      client.pipe(upstream).pipe(client);
      client.on('error', () => upstream.destroy());
      upstream.on('error', () => client.destroy());
    });
    fading.listen(0, '127.0.0.1');
    await once(fading, 'listening');
  });

  after(async () => {
    fading.close();
    await independent.close();
    await server.close();
  });

  test('a target that stops answering mid-run: every rule it leaves unchecked is ERROR, exit 3, the rest not sent', async () => {
    const port = (fading.address() as AddressInfo).port;
    const file = join(work, 'fading.json');
    writeFileSync(join(work, 'independent-ca.pem'), independent.caPem);
    writeFileSync(
      file,
      JSON.stringify({
        baseUrl: `https://acme.api.localhost:${port}/v1`,
        plainHttpBaseUrl: `http://acme.api.localhost:${server.httpPort}/v1`,
        credentials: { fullAccess: 'INDEPENDENT_ACME_LIVE_FULL' },
        caFile: join(work, 'independent-ca.pem'),
        hosts: HOSTS,
      }),
    );
    const independentKeys = { INDEPENDENT_ACME_LIVE_FULL: independent.keys.acmeLiveFull };
    const run = await runConformance(
      ['--target', file, '--request-timeout', '2'],
      independentKeys,
      TIME_BOUND_MS * 3,
    );
    assert.equal(run.report?.verdict, 'INCOMPLETE', run.stdout);
    assert.equal(run.exitCode, 3);
    const verdicts = new Map(run.report.rules.map((rule) => [rule.id, rule.verdict]));
    assert.deepEqual(
      run.report.rules
        .filter((rule) => rule.verdict === 'fail' || rule.verdict === 'warning')
        .map((rule) => rule.id),
      [],
      'no answer is never evidence of a failure',
    );
    for (const id of [
      'AUTH-MISSING-HEADER',
      'KEY-VALID-SERVED',
      'KEY-UNKNOWN-REJECTED',
      'ERROR-BODY-SHAPE',
      'VERSION-PATH',
    ])
      assert.equal(
        verdicts.get(id),
        'error',
        `${id}: ${run.report.rules.find((rule) => rule.id === id)?.message}`,
      );
    const notSent = run.report.rules.filter((rule) =>
      /the target stopped answering/.test(rule.message ?? ''),
    );
    assert.ok(notSent.length > 0, 'after 3 exchanges without an answer, the rest are not sent');
    assert.deepEqual(
      notSent.filter((rule) => rule.verdict !== 'error').map((rule) => `${rule.id}: ${rule.verdict}`),
      [],
      'a rule never sent is an ERROR',
    );
    // Playwright's side: those rules were skipped, not failed, so no worker was replaced for them.
    const skipped = new Set(run.outcomes.filter((o) => o.status === 'skipped').map((o) => o.ruleId));
    assert.deepEqual(
      notSent.filter((rule) => !skipped.has(rule.id)).map((rule) => rule.id),
      [],
      'each rule not sent is a skipped test',
    );
  });

  test('an otherTenantBaseUrl the preflight cannot reach: its rules are not evaluated, with the reason', async () => {
    const file = join(work, 'other-down.json');
    writeFileSync(
      file,
      JSON.stringify({
        baseUrl: server.baseUrl('acme'),
        otherTenantBaseUrl: 'https://globex.api.localhost:9/v1',
        plainHttpBaseUrl: server.plainHttpBaseUrl('acme'),
        credentials: {
          fullAccess: 'REFERENCE_KEY_ACME_PROD_FULL',
          otherTenant: 'REFERENCE_KEY_GLOBEX_PROD_FULL',
        },
        caFile: server.caPath,
        hosts: HOSTS,
      }),
    );
    const run = await runConformance(['--target', file, '--grep', '@TENANT-'], keys);
    assert.equal(run.exitCode, 0, run.stderr);
    const crossKey = run.report?.rules.find((rule) => rule.id === 'TENANT-CROSS-KEY-REJECTED');
    assert.equal(crossKey?.verdict, 'not-evaluated');
    assert.match(
      crossKey?.message ?? '',
      /preflight could not reach \[connect\] otherTenantBaseUrl https:\/\/globex/,
    );
    assert.equal(run.report?.setupProblems?.[0]?.field, 'otherTenantBaseUrl');
    assert.equal(run.report?.rules.filter((rule) => rule.verdict === 'fail').length, 0);
  });
});
