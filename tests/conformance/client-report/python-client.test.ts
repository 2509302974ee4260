// The client rules about what a client does next hold for a client in another language, tested
// through the admin API's behaviours as a server started by hand would be: a Python client of the
// standard library adds a 429 with Retry-After itself, then either waits (judged clean) or
// retries at once (caught by CLIENT-HONOURS-RETRY-AFTER alone).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { startReferenceMock, type ReferenceMock } from '../../../library/mock.ts';

const SCRIPT = join(import.meta.dirname, 'retry_after_client.py');
const python = spawnSync('python3', ['--version'], { encoding: 'utf8' });

describe(
  'a Python client through the admin API',
  { skip: python.status !== 0 && 'python3 is not installed' },
  () => {
    let mock: ReferenceMock;
    before(async () => {
      mock = await startReferenceMock();
    });
    after(() => mock.close());

    for (const [mode, caughtBy, statuses] of [
      ['faulty', ['CLIENT-HONOURS-RETRY-AFTER'], [429, 200]],
      ['correct', [], [429, 200]],
    ] as const) {
      test(`${mode}: ${caughtBy.length === 0 ? 'no rule' : caughtBy.join(', ')}`, async () => {
        await mock.reset();
        const key = await mock.mintKey({ tenant: 'acme', access: 'read_only' });
        const api = new URL(mock.baseUrl('acme'));
        // Not spawnSync: the mock answers from this process, whose event loop must keep running.
        const run = await promisify(execFile)('python3', [SCRIPT], {
          encoding: 'utf8',
          timeout: 30_000,
          env: {
            ...process.env,
            MODE: mode,
            API_HOST: api.hostname,
            API_PORT: api.port,
            ADMIN_HOST: new URL(mock.adminUrl).hostname,
            CA_FILE: mock.caFile,
            API_KEY: key.secret,
            KEY_ID: key.id,
            ADMIN_TOKEN: mock.adminToken,
          },
        });
        assert.deepEqual(JSON.parse(run.stdout), statuses, run.stderr);
        const report = await mock.clientReport();
        const [client] = report.clients.filter((judged) => judged.userAgent === `python-http-client-${mode}`);
        assert.ok(client, JSON.stringify(report.clients.map((judged) => judged.userAgent)));
        const flagged = client.rules.filter((rule) => rule.verdict === 'fail' || rule.verdict === 'warning');
        assert.deepEqual(
          flagged.map((rule) => rule.id),
          caughtBy,
          JSON.stringify(flagged),
        );
        const retryRule = client.rules.find((rule) => rule.id === 'CLIENT-HONOURS-RETRY-AFTER');
        assert.notEqual(retryRule?.verdict, 'not-evaluated');
        assert.ok(!JSON.stringify(report).includes(key.secret));
      });
    }
  },
);
