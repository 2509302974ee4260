// The row a signature cannot close: a vendor publishes a CONFORMANT bundle of made-up outcomes,
// signed by its own key, for a version whose deployment is NOT CONFORMANT (the reference server
// with a fault of mutation/faults/). The registry takes it (can-i-ship: Yes); `registry recheck`
// runs the compiled kit against the deployment with the operator's target file and the registry's
// key, and `can-i-ship --checked-by registry` then says No, naming the registry's own run — on the
// embedded database and on a PostgreSQL server. To keep the cost low, each re-check runs the one
// rule the fault breaks (`-- --grep`), over HTTP/1.1 with one worker: one Playwright run per
// database; the stored run says it selected one rule. The target file's keys reach no log, page,
// answer or bundle file.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { main as registryCommand } from '../../cli/commands/registry.ts';
import { fixtureKeyEnvironment } from '../../conformance/deployment/embedded-target.ts';
import { readTargetFile } from '../../conformance/deployment/target.ts';
import { addPublisher } from '../../registry/publish/publishers.ts';
import { KIT_BIN, nodeArguments } from '../support/compiled-kit.ts';
import { runBounded, writeTargetOf } from '../support/conformance-run.ts';
import { allSecrets, startTestServer, type TestServer } from '../support/reference-client.ts';
import { SAMPLE_FAILING_RULE, SAMPLE_FAULT } from '../support/sample-failure.ts';
import { scratchDirectory } from '../support/scratch.ts';
import { BACKENDS, stopBackends } from './support/backends.ts';
import { keyPair, makeBundle, removeBundles } from './support/bundles.ts';
import { startTestRegistry, type TestRegistry } from './support/registry.ts';
import { askShip, type Ship } from './support/ship.ts';

const vendor = keyPair();
const registryKey = keyPair();

describe('registry recheck: the registry runs the kit itself', () => {
  let deployment: TestServer;
  let targetFile = '';
  let keyFile = '';
  let madeUp = '';
  before(async () => {
    deployment = await startTestServer({ fault: SAMPLE_FAULT });
    targetFile = writeTargetOf(deployment, 'acme production');
    keyFile = join(scratchDirectory('registry-key-'), 'registry.key');
    writeFileSync(keyFile, registryKey.privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    // What a dishonest vendor sends: every rule passed, at the deployment's own base URL, signed.
    madeUp = makeBundle({
      key: vendor.privateKey,
      baseUrl: readTargetFile(targetFile).baseUrl,
      startedAt: new Date(Date.now() - 3_600_000),
    });
  });
  after(async () => {
    await deployment.close();
    removeBundles();
    await stopBackends();
  });

  for (const backend of BACKENDS) {
    describe(`${backend} database`, () => {
      let registry: TestRegistry;
      let operatorToken = '';
      let vendorRun = 0;
      const ask = (extra = ''): Promise<Ship> =>
        askShip(registry, `deployment=acme&version=1.2.0&profile=strict${extra}`);
      const recheck = (more: string[] = []): string[] => [
        'recheck',
        '--registry',
        registry.registry.url,
        '--ca-file',
        registry.caPath,
        '--version',
        '1.2.0',
        '--target',
        targetFile,
        '--sign-key',
        keyFile,
        ...more,
      ];
      before(async () => {
        registry = await startTestRegistry(backend, { acme: [vendor.publicPem] });
        operatorToken = addPublisher(registry.publishersFile, 'ops', [registryKey.publicPem], {
          operator: true,
        }).token;
        const published = await registry.publish(madeUp, 'acme', '1.2.0', registry.tokens.get('acme') ?? '');
        assert.equal(published.status, 201, JSON.stringify(published.json));
        vendorRun = (published.json as { run: { id: number } }).run.id;
        // Another deployment, bound to another target: a re-check of it with this target file is refused.
        const other = await registry.publish(
          makeBundle({ key: vendor.privateKey }),
          'elsewhere',
          '1.0.0',
          registry.tokens.get('acme') ?? '',
        );
        assert.equal(other.status, 201, JSON.stringify(other.json));
      });
      after(() => registry.close());

      test("the vendor's made-up bundle is accepted and answers Yes", async () => {
        const answer = await ask();
        assert.equal(answer.ship, true, answer.reason);
        assert.equal(answer.run?.id, vendorRun);
      });

      test('an unknown deployment, or one bound to another target, is refused before anything runs', async (t) => {
        const printed: string[] = [];
        t.mock.method(console, 'log', (text: string) => printed.push(text));
        t.mock.method(console, 'error', (text: string) => printed.push(text));
        process.env.TENANT_AUTH_REGISTRY_TOKEN = operatorToken;
        try {
          assert.equal(await registryCommand(recheck(['--deployment', 'nobody'])), 2, printed.join('\n'));
          assert.match(printed.join('\n'), /has no deployment named "nobody"/);
          assert.equal(await registryCommand(recheck(['--deployment', 'elsewhere'])), 2, printed.join('\n'));
          assert.match(
            printed.join('\n'),
            /elsewhere is bound to https:\/\/api\.acme\.example\/v1: .*Nothing was run\./,
          );
          assert.equal(await registryCommand(recheck(['--deployment', 'acme', '--', '--publish', 'x'])), 2);
          assert.match(printed.join('\n'), /--publish is the re-check's own to set/);
        } finally {
          delete process.env.TENANT_AUTH_REGISTRY_TOKEN;
        }
        const runs = ((await registry.request('/api/v1/deployments/acme')).json as { runs: { id: number }[] })
          .runs;
        assert.deepEqual(
          runs.map((run) => run.id),
          [vendorRun],
          'nothing was stored',
        );
      });

      test('registry recheck stores a NOT CONFORMANT run of its own, and can-i-ship --checked-by registry says No', async () => {
        const run = await runBounded(
          process.execPath,
          [
            ...nodeArguments(KIT_BIN),
            'registry',
            ...recheck([
              '--deployment',
              'acme',
              '--',
              '--grep',
              `@${SAMPLE_FAILING_RULE}`,
              '--profile',
              'strict',
              '--protocols',
              'h1',
              '--workers=1',
            ]),
          ],
          // The keys the target file names, in the operator's environment (never the registry's).
          { ...fixtureKeyEnvironment(), TENANT_AUTH_REGISTRY_TOKEN: operatorToken },
          180_000,
        );
        const printed = run.stdout + run.stderr;
        assert.equal(run.exitCode, 1, printed);
        const published =
          /^Published: acme 1\.2\.0 is run (\d+), NOT CONFORMANT, checked by the registry: /m.exec(
            run.stdout,
          );
        assert.ok(published, printed);
        const ours = Number(published[1]);
        const detail = await registry.request(`/api/v1/runs/${ours}`);
        const { run: stored, rules } = detail.json as {
          run: {
            checkedBy: string;
            publisher: string;
            verdict: string;
            rulesSelected: number;
            signer: string;
          };
          rules: { ruleId: string; protocol: string; verdict: string }[];
        };
        assert.equal(stored.checkedBy, 'registry');
        assert.equal(stored.publisher, 'ops');
        assert.equal(stored.verdict, 'NOT CONFORMANT');
        assert.equal(stored.rulesSelected, 1, 'the stored run says what it checked');
        assert.deepEqual(
          rules
            .filter((rule) => rule.protocol === 'all' && rule.verdict === 'fail')
            .map((rule) => rule.ruleId),
          [SAMPLE_FAILING_RULE],
        );
        // The plain question still takes the vendor's word: its made-up run covers it.
        const plain = await ask();
        assert.equal(plain.ship, true, plain.reason);
        assert.equal(plain.run?.id, vendorRun);
        const checked = await ask('&checkedBy=registry');
        assert.equal(checked.ship, false);
        assert.match(
          checked.reason,
          new RegExp(
            `^No: no run of acme 1\\.2\\.0 checked by the registry covers .*run ${ours} \\(NOT CONFORMANT\\)`,
          ),
        );
        // No key of the operator's target file reaches the registry: logs, answers, pages, files.
        const seen = [
          registry.logs.join('\n'),
          detail.text,
          (await registry.request(`/runs/${ours}`)).text,
          (await registry.request('/deployments/acme')).text,
          (await registry.request(`/runs/${ours}/files/conformance.json`)).text,
          (await registry.request(`/runs/${ours}/files/exchanges.har`)).text,
          printed,
        ].join('\n');
        for (const secret of allSecrets(deployment.fixtures))
          assert.ok(!seen.includes(secret), 'a key leaked');
      });
    });
  }
});
