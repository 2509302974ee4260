// can-i-ship and diff as JSON API calls, on the embedded database and on a PostgreSQL server:
// can-i-ship says yes only for a VERIFIED CONFORMANT run covering the profile and protocols asked,
// and why not otherwise; diff lists what regressed, recovered, changed level, and what is unstable.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { storeRun, type RunFacts } from '../../../registry/store/runs.ts';
import { BACKENDS, stopBackends } from '../support/backends.ts';
import { runFacts } from '../support/run-facts.ts';
import { HTTP_RULES, MUST_RULES, keyPair, makeBundle, removeBundles } from '../support/bundles.ts';
import { startTestRegistry, type TestRegistry } from '../support/registry.ts';

after(() => removeBundles());
const vendor = keyPair();
const mustRule = MUST_RULES[1] ?? '';
const httpRule = HTTP_RULES[0] ?? '';
/** A MUST rule checked over both protocols (not one of HTTP/2's own). */
const perProtocolRule = 'KEY-UNKNOWN-REJECTED';
let hour = 0;
const at = (): Date => new Date(Date.UTC(2026, 10, 20, hour++));
const bundles = {
  strict: makeBundle({ key: vendor.privateKey, startedAt: at() }),
  defaultProfile: makeBundle({
    key: vendor.privateKey,
    profile: 'default',
    failing: [httpRule],
    startedAt: at(),
  }),
  h1Only: makeBundle({ key: vendor.privateKey, profile: 'default', checked: ['HTTP/1.1'], startedAt: at() }),
  notConformant: makeBundle({ key: vendor.privateKey, failing: [mustRule], startedAt: at() }),
  flakyPass: makeBundle({ key: vendor.privateKey, startedAt: at() }),
  flakyFail: makeBundle({ key: vendor.privateKey, failing: [mustRule], startedAt: at() }),
  selection: makeBundle({ key: vendor.privateKey, profile: 'default', rulesSelected: 10, startedAt: at() }),
};

interface Ship {
  ship: boolean;
  reason: string;
  run?: { id: number };
}
interface Diff {
  regressed: { ruleId: string; from: string; to: string }[];
  recovered: { ruleId: string; from: string; to: string }[];
  changed: { ruleId: string }[];
  changedLevel: { ruleId: string; from: string; to: string }[];
  unstable: { ruleId: string; version: string; verdicts: { verdict: string }[] }[];
}

for (const backend of BACKENDS) {
  describe(`can-i-ship and diff on the ${backend} database`, () => {
    let registry: TestRegistry;
    const ask = async (query: Record<string, string>): Promise<Ship> => {
      const answer = await registry.request(`/api/v1/can-i-ship?${new URLSearchParams(query).toString()}`);
      assert.equal(answer.status, 200, answer.text);
      return answer.json as Ship;
    };
    const diff = async (from: string, to: string, deployment = 'shop'): Promise<Diff> => {
      const answer = await registry.request(
        `/api/v1/diff?${new URLSearchParams({ deployment, from, to }).toString()}`,
      );
      assert.equal(answer.status, 200, answer.text);
      return answer.json as Diff;
    };

    before(async () => {
      registry = await startTestRegistry(backend, { acme: [vendor.publicPem] });
      const token = registry.tokens.get('acme') ?? '';
      for (const [bundle, version] of [
        [bundles.strict, '1.0.0'],
        [bundles.defaultProfile, '1.1.0'],
        [bundles.h1Only, '1.2.0'],
        [bundles.notConformant, '1.3.0'],
        [bundles.flakyPass, '1.4.0'],
        [bundles.flakyFail, '1.4.0'],
        [bundles.selection, '1.5.0'],
      ] as const) {
        const answer = await registry.publish(bundle, 'shop', version, token);
        assert.equal(answer.status, 201, JSON.stringify(answer.json));
      }
    });
    after(async () => {
      await registry.close();
      if (backend === 'server') await stopBackends();
    });

    test('a strict CONFORMANT run over both protocols answers yes for either profile and any protocols', async () => {
      for (const query of [
        {},
        { profile: 'strict' },
        { profile: 'default', protocols: 'h1' },
        { protocols: 'h1,h2' },
      ] as Record<string, string>[]) {
        const answer = await ask({ deployment: 'shop', version: '1.0.0', ...query });
        assert.equal(answer.ship, true, answer.reason);
        assert.match(answer.reason, /^Yes: run \d+ of shop 1\.0\.0 .* is VERIFIED and CONFORMANT/);
      }
    });

    test('a default-profile run does not answer for strict', async () => {
      assert.equal((await ask({ deployment: 'shop', version: '1.1.0' })).ship, true);
      const strict = await ask({ deployment: 'shop', version: '1.1.0', profile: 'strict' });
      assert.equal(strict.ship, false);
      assert.match(
        strict.reason,
        /no run of shop 1\.1\.0 covers the strict profile.*it ran under the default profile, strict was asked/,
      );
    });

    test('a run over HTTP/1.1 alone answers only for HTTP/1.1, not for what the target offers', async () => {
      assert.equal((await ask({ deployment: 'shop', version: '1.2.0', protocols: 'h1' })).ship, true);
      const offered = await ask({ deployment: 'shop', version: '1.2.0' });
      assert.equal(offered.ship, false);
      assert.match(offered.reason, /it checked HTTP\/1\.1 only, but the target offers HTTP\/2/);
      const h2 = await ask({ deployment: 'shop', version: '1.2.0', protocols: 'h1,h2' });
      assert.match(h2.reason, /it checked HTTP\/1\.1 only, and HTTP\/2 was asked/);
    });

    test('a NOT CONFORMANT run, a selection of rules, an unknown version or deployment: no, and why', async () => {
      assert.match(
        (await ask({ deployment: 'shop', version: '1.3.0' })).reason,
        /^No: the latest run .* is NOT CONFORMANT\.$/,
      );
      assert.match(
        (await ask({ deployment: 'shop', version: '1.5.0' })).reason,
        /it selected 10 of the catalog's \d+ rules/,
      );
      assert.match(
        (await ask({ deployment: 'shop', version: '9.9.9' })).reason,
        /^No: no run of shop 9\.9\.9 has been published\.$/,
      );
      assert.match(
        (await ask({ deployment: 'nowhere', version: '1.0.0' })).reason,
        /no deployment named "nowhere"/,
      );
    });

    test('a version whose latest run fails is not shipped on an earlier pass: unstable', async () => {
      const answer = await ask({ deployment: 'shop', version: '1.4.0' });
      assert.equal(answer.ship, false);
      assert.match(
        answer.reason,
        /is NOT CONFORMANT; earlier run \d+ was CONFORMANT, so the outcome is unstable/,
      );
    });

    test('bad questions are 400s naming the parameter', async () => {
      for (const [query, pattern] of [
        [{ deployment: "x'; DROP TABLE runs;--", version: '1' }, /"deployment" must be a name/],
        [{ deployment: 'shop', version: '1.0.0', profile: 'lenient' }, /profile must be default or strict/],
        [{ deployment: 'shop', version: '1.0.0', protocols: 'h3' }, /protocols: name h1, h2 or both/],
        [{ deployment: 'shop' }, /Give version=/],
      ] as const) {
        const answer = await registry.request(`/api/v1/can-i-ship?${new URLSearchParams(query).toString()}`);
        assert.equal(answer.status, 400);
        assert.match((answer.json as { error: { message: string } }).error.message, pattern);
      }
      assert.equal((await registry.request('/api/v1/runs?x=1')).status, 405);
    });

    test('diff: a MUST rule that passed and now fails regressed; the way back recovered', async () => {
      const forward = await diff('1.0.0', '1.3.0');
      assert.deepEqual(forward.regressed, [
        {
          ruleId: mustRule,
          level: 'MUST',
          from: 'pass',
          to: 'fail',
          protocols: { 'HTTP/1.1': { from: 'pass', to: 'fail' }, 'HTTP/2': { from: 'pass', to: 'fail' } },
        },
      ]);
      assert.deepEqual(forward.recovered, []);
      const back = await diff('1.3.0', '1.0.0');
      assert.deepEqual(
        back.recovered.map((rule) => rule.ruleId),
        [mustRule],
      );
      assert.deepEqual(back.regressed, []);
      // An HTTP rule that fails (a warning of the run under the default profile) regressed too.
      assert.deepEqual(
        (await diff('1.0.0', '1.1.0')).regressed.map((rule) => `${rule.ruleId} ${rule.to}`),
        [`${httpRule} fail`],
      );
    });

    test('diff: per protocol — a rule that fails over HTTP/2 alone, and one whose failure moved from one protocol to the other', async () => {
      const token = registry.tokens.get('acme') ?? '';
      for (const [version, over] of [
        ['1.6.0', { 'HTTP/2': [perProtocolRule] }],
        ['1.7.0', { 'HTTP/2': [perProtocolRule] }],
        ['1.8.0', { 'HTTP/1.1': [perProtocolRule] }],
      ] as const) {
        const answer = await registry.publish(
          makeBundle({ key: vendor.privateKey, failingOver: over, startedAt: at() }),
          'shop',
          version,
          token,
        );
        assert.equal(answer.status, 201, JSON.stringify(answer.json));
      }
      const h2 = await diff('1.0.0', '1.6.0');
      assert.deepEqual(h2.regressed, [
        {
          ruleId: perProtocolRule,
          level: 'MUST',
          from: 'pass',
          to: 'fail',
          protocols: { 'HTTP/2': { from: 'pass', to: 'fail' } },
        },
      ]);
      const moved = await diff('1.7.0', '1.8.0');
      assert.deepEqual(moved.regressed, []);
      assert.deepEqual(moved.changed, [
        {
          ruleId: perProtocolRule,
          level: 'MUST',
          from: 'fail',
          to: 'fail',
          protocols: { 'HTTP/1.1': { from: 'pass', to: 'fail' }, 'HTTP/2': { from: 'fail', to: 'pass' } },
        },
      ]);
    });

    test('diff: a rule that flips between runs of one version is unstable, never regressed', async () => {
      const answer = await diff('1.0.0', '1.4.0');
      assert.deepEqual(answer.regressed, []);
      assert.deepEqual(
        answer.unstable.map(
          (rule) => `${rule.ruleId} ${rule.version} ${rule.verdicts.map((v) => v.verdict).join('/')}`,
        ),
        [`${mustRule} 1.4.0 pass/fail`],
      );
    });

    test('diff: a rule whose level changed between the catalogs two versions ran', async () => {
      const facts = (version: string, seed: string): RunFacts =>
        runFacts('levels', {
          version,
          baseUrl: 'https://levels.example/v1',
          scope: null,
          options: null,
          statementSha256: seed,
          reportSha256: seed,
          signer: 'sha256:x',
          startedAt: '2026-11-25T10:00:00.000Z',
        });
      const bundle = (seed: string) => ({
        sha256: createHash('sha256').update(seed).digest('hex'),
        files: [],
      });
      await storeRun(registry.backend.db, facts('1.0.0', 'a'), bundle('levels-a'), [
        { ruleId: 'RULE-X', level: 'ADVISORY', protocol: 'all', verdict: 'pass' },
      ]);
      await storeRun(registry.backend.db, facts('2.0.0', 'b'), bundle('levels-b'), [
        { ruleId: 'RULE-X', level: 'HTTP', protocol: 'all', verdict: 'pass' },
      ]);
      assert.deepEqual((await diff('1.0.0', '2.0.0', 'levels')).changedLevel, [
        { ruleId: 'RULE-X', from: 'ADVISORY', to: 'HTTP' },
      ]);
    });

    test('a run partial in ways beyond its columns (a protocol for some rules, a list cut, a reason unknown) does not cover', async () => {
      const stored = (version: string, scope: object, partial: string[]): RunFacts => ({
        deployment: 'scoped',
        version,
        targetName: 'scoped',
        baseUrl: 'https://scoped.example/v1',
        profile: 'default',
        verdict: 'CONFORMANT',
        protocolsChecked: ['HTTP/1.1', 'HTTP/2'],
        protocolsOffered: ['HTTP/1.1', 'HTTP/2'],
        rulesSelected: 46,
        rulesInCatalog: 46,
        partial,
        scope,
        options: null,
        kitVersion: '0.1.0',
        catalogSha256: null,
        statementSha256: version,
        reportSha256: version,
        signer: 'sha256:x',
        publisher: 'acme',
        startedAt: '2026-11-25T10:00:00.000Z',
        warnings: [],
        otherTenant: null,
        checkedBy: 'publisher',
      });
      const bundle = (seed: string) => ({
        sha256: createHash('sha256').update(seed).digest('hex'),
        files: [],
      });
      const cases = [
        [
          '1.0.0',
          { rulesChecked: { 'HTTP/2': 23 } },
          ['HTTP/2 was checked for 23 of the 46 selected rules only.'],
          /it checked HTTP\/2 for 23 of its 46 selected rules only/,
        ],
        [
          '2.0.0',
          { listsCut: ['The customers list was cut at 5 pages.'] },
          ['The customers list was cut at 5 pages.'],
          /a list bound stopped it before the end of a list \(The customers list was cut at 5 pages\.\)/,
        ],
        [
          '3.0.0',
          {},
          ['The merged shards are not one run: they ran different kits.'],
          /it is partial: The merged shards are not one run/,
        ],
      ] as const;
      for (const [version, scope, partial, why] of cases) {
        await storeRun(
          registry.backend.db,
          stored(version, scope, [...partial]),
          bundle(`scoped-${version}`),
          [],
        );
        const answer = await ask({ deployment: 'scoped', version });
        assert.equal(answer.ship, false, answer.reason);
        assert.match(answer.reason, why);
      }
      // HTTP/1.1 alone was checked for every rule: a question about it alone is covered.
      assert.equal((await ask({ deployment: 'scoped', version: '1.0.0', protocols: 'h1' })).ship, true);
    });

    test('diff of a version with no run is a 404 naming it', async () => {
      const answer = await registry.request('/api/v1/diff?deployment=shop&from=1.0.0&to=7.0.0');
      assert.equal(answer.status, 404);
      assert.match(answer.text, /No run of shop 7\.0\.0 has been published/);
    });
  });
}
