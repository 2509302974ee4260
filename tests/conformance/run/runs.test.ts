// End-to-end runs of the suite, as a user makes them: against the embedded reference server, and
// against a separately started reference process described by a target file (URL mode).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RULES } from '../../../conformance/catalog/rules.ts';
import { fixtureKeyEnvironment } from '../../../conformance/deployment/embedded-target.ts';
import { missingInputs } from '../../../conformance/deployment/inputs.ts';
import {
  OVER_OFFERED_PROTOCOLS,
  referenceTargetOn,
  runConformance,
  type ConformanceRun,
} from '../../support/conformance-run.ts';
import { assertConformantOverBothProtocols } from '../../support/protocol-verdicts.ts';
import { testUnderBothProfiles } from '../../support/both-profiles.ts';
import { startCli, type CliProcess } from '../../support/reference-cli.ts';
import { ensureCertificates } from '../../../reference-server/listeners/certificates.ts';
import { NOT_APPLICABLE_ON_REFERENCE } from '../../support/rule-declarations.ts';
import { scratchDirectory } from '../../support/scratch.ts';

function assertAllPassed(run: ConformanceRun): void {
  // A rule the reference leaves not applicable (the cookie rule: it sets no cookie on a served
  // answer) is skipped, saying why, as its declaration says.
  const notApplicable = (outcome: ConformanceRun['outcomes'][number]): boolean =>
    outcome.status === 'skipped' &&
    NOT_APPLICABLE_ON_REFERENCE.some(
      ({ id, why }) =>
        outcome.ruleId === id &&
        outcome.annotations.some(
          (annotation) =>
            annotation.type === 'not-applicable' && (annotation.description ?? '').includes(why),
        ),
    );
  const notPassed = run.outcomes.filter((outcome) => outcome.status !== 'passed' && !notApplicable(outcome));
  assert.deepEqual(
    notPassed.map(
      (outcome) =>
        `${outcome.ruleId}: ${outcome.status} ${outcome.errors.join(' ')} ${JSON.stringify(outcome.annotations)}`,
    ),
    [],
  );
  assert.deepEqual(
    new Set(run.outcomes.map((outcome) => outcome.ruleId)),
    new Set(RULES.map((rule) => rule.id)),
  );
  assert.equal(run.exitCode, 0, run.stderr);
}

// Over both protocols the embedded server offers by ALPN, as a user's run without --protocols is:
// every rule passed over HTTP/1.1 and over HTTP/2. One run under strict, read under both profiles
// (a run in which every rule passed is the same run under either).
testUnderBothProfiles(
  (profile) =>
    `--profile ${profile}: the embedded reference server passes every rule over HTTP/1.1 and HTTP/2, none left not evaluated`,
  () => runConformance(['--profile', 'strict'], OVER_OFFERED_PROTOCOLS),
  (run) => {
    assert.equal(run.exitCode, 0, run.stderr);
    assert.equal(run.report?.verdict, 'CONFORMANT');
    // Read from the report: Playwright's HTTP/1.1 project skips the rules of HTTP/2's own.
    assertConformantOverBothProtocols(run);
    // Progress per rule and protocol, the verdict per protocol, then the verdict.
    assert.match(run.stdout, /pass +MUST +KEY-VALID-SERVED \(HTTP\/2\)/);
    assert.match(run.stdout, /Protocols: HTTP\/1\.1 CONFORMANT; HTTP\/2 CONFORMANT\./);
    assert.match(run.stdout, /VERDICT: CONFORMANT/);
    assert.ok(
      !run.outcomes.some((outcome) =>
        outcome.annotations.some((annotation) => annotation.type === 'warning'),
      ),
    );
  },
);

describe('URL mode: a reference process started separately, described by a target file', () => {
  let server: CliProcess;
  let ports: { https: string; http: string };
  const work = scratchDirectory('conformance-url-mode-');
  const keys = fixtureKeyEnvironment();

  before(async () => {
    server = startCli([
      // Lists paged two a page, as the embedded target's: every rule is exercised, the page-cursor one too.
      ...['--port', '0', '--http-port', '0', '--access-log', 'off', '--page-size', '2'],
      ...['--cert-dir', join(work, 'certs'), '--data-dir', join(work, 'data')],
    ]);
    const [, https = '', http = ''] = await server.waitForStdout(
      /Listening: https port (\d+), http port (\d+)/,
    );
    ports = { https, http };
  });

  after(async () => {
    server.child.kill('SIGTERM');
    await server.exited;
  });

  function writeTarget(name: string, content: object): string {
    const file = join(work, name);
    writeFileSync(file, JSON.stringify(content, null, 2));
    return file;
  }

  const common = () => ({
    caFile: join(work, 'certs', 'ca.crt'),
    hosts: { '*.localhost': '127.0.0.1' },
  });

  test('a full target file: every rule passes, trusting a CA of the user too, and the run leaves nothing behind', async () => {
    const file = writeTarget(
      'full.json',
      referenceTargetOn(ports, { name: 'separately started reference', ...common() }),
    );
    // A CA the user's Node already trusts, which the target's CA joins in a bundle; and a
    // temporary directory of the run's own, to see what the run leaves in it.
    const userCa = (await ensureCertificates(join(work, 'user-ca'), 'corp.example')).caPath;
    const temporary = join(work, 'tmp');
    mkdirSync(temporary);
    assertAllPassed(
      await runConformance(['--target', file], { ...keys, NODE_EXTRA_CA_CERTS: userCa, TMPDIR: temporary }),
    );
    assert.deepEqual(readdirSync(temporary), []);
  });

  test('only a base URL and one key: a useful run, and every rule it cannot check is "not evaluated" with the line to add', async () => {
    const file = writeTarget('minimal.json', {
      baseUrl: `https://acme.api.localhost:${ports.https}/v1`,
      credentials: { fullAccess: 'MY_KEY' },
      ...common(),
    });
    const run = await runConformance(['--target', file], { MY_KEY: keys.REFERENCE_KEY_ACME_PROD_FULL });
    assert.equal(run.exitCode, 0, run.stderr);
    assert.equal(run.report?.verdict, 'INCOMPLETE', 'MUST rules were not evaluated');
    assert.match(run.stdout, /VERDICT: INCOMPLETE/);
    const byId = new Map(run.outcomes.map((outcome) => [outcome.ruleId, outcome]));
    const target = { credentials: { fullAccess: 'x' } } as Parameters<typeof missingInputs>[0];
    for (const rule of RULES) {
      const outcome = byId.get(rule.id);
      assert.ok(outcome, `no outcome for ${rule.id}`);
      if (missingInputs(target, rule.needs).length > 0) {
        assert.equal(outcome.status, 'skipped', `${rule.id} lacks inputs and must not pass`);
        const reason =
          outcome.annotations.find((annotation) => annotation.type === 'not-evaluated')?.description ?? '';
        assert.match(reason, /Add to it: .*"/, `${rule.id} must say what to add`);
      } else {
        assert.equal(outcome.status, 'passed', `${rule.id}: ${outcome.errors.join(' ')}`);
      }
    }
    // Exactly the rules whose inputs are there ran, and they are most of the catalog.
    const checkable = RULES.filter((rule) => missingInputs(target, rule.needs).length === 0);
    assert.equal(run.outcomes.filter((outcome) => outcome.status === 'passed').length, checkable.length);
    assert.ok(checkable.length > RULES.length / 2, 'a base URL and one key still check most rules');
  });
});

test('a bad target file is refused before the run, naming the file and the field', async () => {
  const work = scratchDirectory('conformance-bad-target-');
  const file = join(work, 'target.json');
  const pastedKey = fixtureKeyEnvironment().REFERENCE_KEY_ACME_PROD_FULL ?? '';
  writeFileSync(
    file,
    JSON.stringify({
      baseUrl: 'http://acme.example/v1',
      credentials: { fullAccess: pastedKey, readOnly: 'UNSET_VARIABLE_FOR_TEST' },
    }),
  );
  const run = await runConformance(['--target', file]);
  assert.equal(run.exitCode, 2);
  assert.match(run.stderr, new RegExp(`Invalid target file ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  assert.match(run.stderr, /\$\.baseUrl: must match pattern/);
  assert.match(run.stderr, /\$\.credentials\.fullAccess: .*NAME of an environment variable/);
  assert.ok(
    !run.stderr.includes(pastedKey) && !run.stdout.includes(pastedKey),
    'a key pasted into the file must not be echoed',
  );
  assert.equal(run.outcomes.length, 0);

  writeFileSync(
    file,
    JSON.stringify({
      baseUrl: 'https://acme.example/v1',
      credentials: { readOnly: 'UNSET_VARIABLE_FOR_TEST' },
    }),
  );
  const unset = await runConformance(['--target', file], { UNSET_VARIABLE_FOR_TEST: '' });
  assert.equal(unset.exitCode, 2);
  assert.match(
    unset.stderr,
    /\$\.credentials\.readOnly: the environment variable UNSET_VARIABLE_FOR_TEST is not set/,
  );
});

// Without the flag an INCOMPLETE verdict exits 0: the minimal target's run above says so (a run of
// its own here would only repeat that assertion, at the cost of a whole run).
test('--fail-on-incomplete turns an INCOMPLETE verdict into a failing exit code', async () => {
  const strict = await runConformance(['--grep', '@VERSION-PATH', '--fail-on-incomplete']);
  assert.equal(strict.report?.verdict, 'INCOMPLETE');
  assert.equal(strict.exitCode, 1);
});
