// The target's roles are checked before any rule judges the deployment by them: the other tenant
// is another production tenant (not the base URL's host, not the tenant's sandbox, not a
// sandbox-{tenant} host), no two roles share a key, and the other tenant's key is served its own
// tenant's list. A role not shown so makes the rules that need it "not evaluated" with the fix —
// never a pass (a sandbox as the other tenant, against a deployment that serves another tenant's
// key), never a fail (one of the tenant's own keys given as the other tenant's). Controls: the
// honest target of the same deployments.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fixtureKeyEnvironment } from '../../../conformance/deployment/embedded-target.ts';
import type { ResolvedTarget } from '../../../conformance/deployment/target.ts';
import { roleNotShownReason, roleProblems } from '../../../conformance/run/target-roles.ts';
import { referenceTargetOn, type ConformanceRun } from '../../support/conformance-run.ts';
import { runNamed, runTargetsTogether } from '../../support/batched-runs.ts';
import { startTestServer, type TestServer } from '../../support/reference-client.ts';
import { scratchDirectory } from '../../support/scratch.ts';

const keys = fixtureKeyEnvironment();

function target(overrides: Partial<ResolvedTarget> = {}): ResolvedTarget {
  return {
    name: 'acme',
    mode: 'file',
    file: 'target.json',
    baseUrl: 'https://acme.api.example.com/v1',
    otherTenantBaseUrl: 'https://globex.api.example.com/v1',
    sandboxBaseUrl: 'https://sandbox-acme.api.example.com/v1',
    plainHttpBaseUrl: 'http://acme.api.example.com/v1',
    credentialVariables: {
      fullAccess: 'KEY_FULL',
      otherTenant: 'KEY_OTHER',
      sandbox: 'KEY_DEV',
      probe: 'KEY_PROBE',
    },
    credentials: {
      fullAccess: 'acme-full',
      otherTenant: 'globex-full',
      sandbox: 'acme-dev',
      probe: 'acme-full',
    },
    profile: 'strict',
    hosts: {},
    ...overrides,
  };
}

const ISOLATION = ['credentials.fullAccess', 'otherTenantBaseUrl', 'credentials.otherTenant'] as const;

test('the honest roles have no problem (the probe may be any valid key of the tenant)', () => {
  assert.deepEqual([...roleProblems(target(), { other: { label: 'globex', values: new Set() } })], []);
});

test('a sandbox as the other tenant is not another production tenant', () => {
  for (const otherTenantBaseUrl of [
    'https://sandbox-acme.api.example.com/v1',
    'https://sandbox-globex.api.example.com/v1',
    'https://acme.api.example.com/v1',
  ]) {
    const reason = roleNotShownReason(roleProblems(target({ otherTenantBaseUrl })), ISOLATION);
    assert.match(reason ?? '', /^not evaluated: the target's roles are not shown/, otherTenantBaseUrl);
    assert.match(reason ?? '', /Give otherTenantBaseUrl the production base URL of another tenant/);
  }
});

test('one key in two roles makes both not shown, named by their variables, never by the key', () => {
  const problems = roleProblems(
    target({
      credentialVariables: { fullAccess: 'KEY_FULL', readOnly: 'KEY_READ', otherTenant: 'KEY_READ' },
      credentials: { fullAccess: 'acme-full', readOnly: 'acme-read', otherTenant: 'acme-read' },
    }),
  );
  const reason = roleNotShownReason(problems, ['credentials.otherTenant']) ?? '';
  assert.match(
    reason,
    /credentials\.readOnly and credentials\.otherTenant are one key \(KEY_READ, KEY_READ\)/,
  );
  assert.doesNotMatch(reason, /acme-read/);
  assert.ok(problems.has('credentials.readOnly'));
  assert.equal(roleNotShownReason(problems, ['credentials.fullAccess']), undefined);
});

test("an other tenant's key that was served no list on its host is not shown to be that tenant's", () => {
  const reason = roleNotShownReason(roleProblems(target(), {}), ['credentials.otherTenant']);
  assert.match(reason ?? '', /was not served the customer list of https:\/\/globex\.api\.example\.com\/v1/);
  // Unanswered is the target's failure to answer (an ERROR), not a role's: not this check's.
  assert.equal(
    roleNotShownReason(roleProblems(target(), { otherUnanswered: 'reset' }), ISOLATION),
    undefined,
  );
});

describe('runs: a deployment that serves another tenant’s key (key-lookup-ignores-tenant), and the clean one', () => {
  let faulty: TestServer;
  let clean: TestServer;
  /** Each target's run, by name: the four runs of this describe, checked in one batch. */
  let runs: Map<string, ConformanceRun>;
  const GREP = 'TENANT-CROSS-KEY-REJECTED:|TENANT-OWN-DATA-ONLY:';
  const write = (
    server: TestServer,
    name: string,
    change: (file: Record<string, unknown>) => void,
  ): string => {
    const ports = { https: server.server.httpsPort, http: server.server.httpPort ?? 0 };
    const file = referenceTargetOn(ports, {
      name,
      caFile: join(server.certDir, 'ca.crt'),
      hosts: { '*.localhost': '127.0.0.1' },
      profile: 'strict',
    }) as Record<string, unknown>;
    change(file);
    const path = join(scratchDirectory('target-roles-'), 'target.json');
    writeFileSync(path, JSON.stringify(file));
    return path;
  };
  const verdicts = (run: ConformanceRun): Record<string, string> =>
    Object.fromEntries((run.report?.rules ?? []).map((rule) => [rule.id, rule.verdict]));
  const runOf = (name: string): ConformanceRun => runNamed(runs, name);

  before(
    async () => {
      [faulty, clean] = await Promise.all([
        startTestServer({ fault: 'key-lookup-ignores-tenant' }),
        startTestServer(),
      ]);
      // Each a run of `run --target FILE --grep GREP` of its own would be (the batch's variants).
      const targets = [
        ['faulty-honest', write(faulty, 'honest', () => {})],
        [
          'faulty-sandbox-as-other',
          write(faulty, 'sandbox as other tenant', (file) => {
            file.otherTenantBaseUrl = file.sandboxBaseUrl;
            (file.credentials as Record<string, string>).otherTenant = 'REFERENCE_KEY_ACME_DEV_FULL';
          }),
        ],
        ['clean-honest', write(clean, 'honest', () => {})],
        [
          'clean-slip',
          write(clean, 'slip', (file) => {
            const credentials = file.credentials as Record<string, string>;
            delete credentials.readOnly;
            credentials.otherTenant = 'REFERENCE_KEY_ACME_PROD_READ';
          }),
        ],
      ] as const;
      // One worker serves the four: each run is two rules, less than a worker process costs to start.
      runs = await runTargetsTogether(
        targets.map(([name, file]) => ({ name, file, env: keys, grep: GREP })),
        { workers: 1 },
      );
    },
    { timeout: 600_000 },
  );
  after(async () => Promise.all([faulty.close(), clean.close()]));

  test('the control: the honest target of the faulty deployment fails TENANT-CROSS-KEY-REJECTED', () => {
    const run = runOf('faulty-honest');
    assert.equal(verdicts(run)['TENANT-CROSS-KEY-REJECTED'], 'fail', run.stdout + run.stderr);
  });

  test("the tenant's own sandbox named as the other tenant: not evaluated, never a pass", () => {
    const run = runOf('faulty-sandbox-as-other');
    const rules = run.report?.rules ?? [];
    const cross = rules.find((rule) => rule.id === 'TENANT-CROSS-KEY-REJECTED');
    assert.equal(cross?.verdict, 'not-evaluated', run.stdout + run.stderr);
    assert.match(cross?.message ?? '', /the tenant's own sandbox/);
    assert.notEqual(run.report?.verdict, 'CONFORMANT');
  });

  test("one of the tenant's own keys as the other tenant's, on the clean deployment: not evaluated, never a fail", () => {
    const honest = runOf('clean-honest');
    assert.equal(verdicts(honest)['TENANT-CROSS-KEY-REJECTED'], 'pass', honest.stdout + honest.stderr);
    const run = runOf('clean-slip');
    const got = verdicts(run);
    assert.equal(got['TENANT-CROSS-KEY-REJECTED'], 'not-evaluated', run.stdout + run.stderr);
    assert.equal(got['TENANT-OWN-DATA-ONLY'], 'not-evaluated');
    assert.notEqual(run.report?.verdict, 'NOT CONFORMANT');
  });

  test('each run checked the two rules its --grep selects, and no other', () => {
    for (const [name, run] of runs) {
      assert.equal(run.report?.scope?.grep, GREP, name);
      assert.equal(run.report?.scope?.rulesSelected, 2, name);
    }
  });
});
