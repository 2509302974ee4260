// `registry yank`, `record-release`, `retention` and `audit` as a user runs them (in process, against
// a registry on the embedded database; the API tests cover both databases): each says what it did,
// exits 0, 1 on a refusal with the registry's reason, 2 on a usage error before any request.
import { after, before, describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { main as registryCommand } from '../../../cli/commands/registry.ts';
import { addPublisher } from '../../../registry/publish/publishers.ts';
import { keyPair, makeBundle, removeBundles } from '../support/bundles.ts';
import { startTestRegistry, type TestRegistry } from '../support/registry.ts';
import { scratchDirectory } from '../../support/scratch.ts';

after(() => removeBundles());
const vendor = keyPair();

describe('the operations commands', () => {
  let registry: TestRegistry;
  let runId: number;
  const files: Record<string, string> = {};
  before(async () => {
    registry = await startTestRegistry('embedded', { acme: [vendor.publicPem] });
    const work = scratchDirectory('registry-operate-');
    files.acme = join(work, 'acme.token');
    files.ops = join(work, 'ops.token');
    writeFileSync(files.acme, registry.tokens.get('acme') ?? '', { mode: 0o600 });
    writeFileSync(files.ops, addPublisher(registry.publishersFile, 'ops', [], { operator: true }).token, {
      mode: 0o600,
    });
    const published = await registry.publish(
      makeBundle({ key: vendor.privateKey }),
      'shop',
      '2.0.0',
      registry.tokens.get('acme') ?? '',
    );
    runId = (published.json as { run: { id: number } }).run.id;
  });
  after(() => registry.close());

  async function run(
    t: TestContext,
    as: 'acme' | 'ops',
    args: string[],
  ): Promise<{ code: number; out: string }> {
    const printed: string[] = [];
    t.mock.method(console, 'log', (text: string) => printed.push(text));
    t.mock.method(console, 'error', (text: string) => printed.push(text));
    const code = await registryCommand([
      ...args,
      '--registry',
      registry.registry.url,
      '--ca-file',
      registry.caPath,
      '--token-file',
      files[as] ?? '',
    ]);
    t.mock.restoreAll();
    return { code, out: printed.join('\n') };
  }

  test('usage errors before any request', async (t) => {
    const noReason = await run(t, 'acme', ['yank', String(runId)]);
    assert.equal(noReason.code, 2);
    assert.match(noReason.out, /Give the reason/);
    assert.equal((await run(t, 'acme', ['yank', 'run-1', '--reason', 'x'])).code, 2);
    const policy = await run(t, 'ops', ['retention']);
    assert.equal(policy.code, 2);
    assert.match(policy.out, /Give a policy/);
    const bad = await run(t, 'ops', ['retention', '--keep-last', 'ten']);
    assert.equal(bad.code, 2);
    assert.match(bad.out, /--keep-last must be a whole number/);
    assert.equal((await run(t, 'acme', ['record-release', '--deployment', 'shop'])).code, 2);
    assert.equal((await run(t, 'ops', ['audit', '--limit', '0'])).code, 2);
  });

  test('a refusal is exit 1 with the registry’s reason', async (t) => {
    const notOperator = await run(t, 'acme', ['retention', '--keep-last', '1']);
    assert.equal(notOperator.code, 1);
    assert.match(notOperator.out, /^Refused: The retention policy is the operator's/);
    const noVersion = await run(t, 'acme', ['record-release', '--deployment', 'shop', '--version', '9.0.0']);
    assert.equal(noVersion.code, 1);
    assert.match(noVersion.out, /No run of shop 9\.0\.0 has been published/);
  });

  test('each command does what it says, and the audit list shows it', async (t) => {
    const released = await run(t, 'acme', ['record-release', '--deployment', 'shop', '--version', '2.0.0']);
    assert.equal(released.code, 0, released.out);
    assert.equal(released.out, 'Recorded: shop 2.0.0 is live.');
    const diff = await run(t, 'acme', ['diff', '--deployment', 'shop', '--to', '2.0.0']);
    assert.equal(diff.code, 0, diff.out);
    assert.match(diff.out, /^shop: 2\.0\.0 \(runs \d+\) → 2\.0\.0/);
    const gate = await run(t, 'acme', [
      'can-i-ship',
      '--deployment',
      'shop',
      '--version',
      '2.0.0',
      '--replacing-live',
    ]);
    assert.equal(gate.code, 0, gate.out);
    assert.match(gate.out, /It would replace the live 2\.0\.0: no rule regressed from it\.$/);
    const dry = await run(t, 'ops', ['retention', '--keep-last', '5', '--dry-run']);
    assert.equal(dry.code, 0, dry.out);
    assert.equal(dry.out, 'No bundle files to remove under this policy.');
    const yanked = await run(t, 'acme', ['yank', String(runId), '--reason', 'signed with a test key']);
    assert.equal(yanked.code, 0, yanked.out);
    assert.match(
      yanked.out,
      new RegExp(`^Yanked run ${runId} \\(shop 2\\.0\\.0\\) at \\S+: kept, and deciding nothing\\.$`),
    );
    const audit = await run(t, 'ops', ['audit']);
    assert.equal(audit.code, 0, audit.out);
    const lines = audit.out.split('\n');
    assert.match(lines[0] ?? '', new RegExp(`^\\S+Z {2}acme {2}yank run ${runId}: signed with a test key$`));
    assert.match(lines[1] ?? '', /^\S+Z {2}acme {2}release deployment shop \(2\.0\.0\)$/);
    assert.ok(!audit.out.includes(registry.tokens.get('acme') ?? '-'), 'no token printed');
  });
  test('registry webhook add prints the secret once; list, deliveries and remove say what they did', async (t) => {
    const usage = await run(t, 'acme', [
      'webhook',
      'add',
      '--url',
      'http://hooks.example/x',
      '--events',
      'run.published',
    ]);
    assert.equal(usage.code, 2);
    assert.match(usage.out, /over https only/);
    assert.equal((await run(t, 'acme', ['webhook', 'remove'])).code, 2);
    assert.equal((await run(t, 'acme', ['webhook', 'ping'])).code, 2);
    assert.match(
      (await run(t, 'acme', ['webhook', 'add', '--url', 'https://hooks.example/x', '--events', 'run.eaten']))
        .out,
      /Unknown event "run.eaten"/,
    );
    const added = await run(t, 'acme', [
      'webhook',
      'add',
      '--url',
      'https://hooks.example/registry',
      '--events',
      'run.published,certified_version.lost',
      '--deployment',
      'shop',
    ]);
    assert.equal(added.code, 0, added.out);
    const secret = /^tacw_[A-Za-z0-9_-]{43}$/m.exec(added.out)?.[0] ?? '';
    assert.ok(secret, added.out);
    const id = /^Webhook (\d+):/m.exec(added.out)?.[1] ?? '';
    const list = await run(t, 'acme', ['webhook', 'list']);
    assert.equal(list.code, 0);
    assert.match(
      list.out,
      new RegExp(
        `^${id}  https://hooks\\.example/registry  run\\.published,certified_version\\.lost  shop$`,
        'm',
      ),
    );
    assert.ok(!list.out.includes(secret), 'the secret is shown once');
    const deliveries = await run(t, 'acme', ['webhook', 'deliveries', id]);
    assert.deepEqual([deliveries.code, deliveries.out], [0, 'No delivery yet.']);
    assert.match((await run(t, 'acme', ['webhook', 'remove', id])).out, new RegExp(`^Removed webhook ${id}`));
    const again = await run(t, 'acme', ['webhook', 'remove', id]);
    assert.equal(again.code, 1);
    assert.match(again.out, /no_such_webhook/);
  });
});
