// A key sent over plain HTTP is exposed: the client report names it critical and advises rotating
// it, and two unknown keys sent so are told apart by their fingerprints, never shown.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { secretOf, send } from '../../support/reference-client.ts';
import { FAULTY_CLIENTS } from './faulty-clients.ts';
import { clientReportPerSuite } from '../../support/client-report-suite.ts';

describe('client report: exposed keys', () => {
  const suite = clientReportPerSuite();
  const { admin, report } = suite;

  test("a garbage key and another tenant's key sent over plain HTTP: two exposed keys, each told by its fingerprint", async () => {
    const target = suite.target();
    const reportsDir = suite.reportsDir();
    await admin('DELETE', '/journal');
    const garbage = `mbk_prod_${randomBytes(24).toString('base64url')}`;
    const otherTenant = secretOf(target.fixtures, 'key_globex_prod_read');
    for (const key of [garbage, otherTenant]) {
      await send(target, {
        plain: true,
        headers: [
          ['User-Agent', 'sdk-plain-unknown-keys'],
          ['Authorization', `Bearer ${key}`],
        ],
      });
    }
    const { json, out } = await report();
    const exposed = json?.exposedKeys ?? [];
    assert.equal(exposed.length, 2, JSON.stringify(exposed));
    const fingerprints = exposed.map((key) => key.keyFingerprint ?? '');
    assert.equal(new Set(fingerprints).size, 2);
    for (const [index, key] of exposed.entries()) {
      assert.match(key.advice, new RegExp(`fingerprint ${fingerprints[index] ?? '?'}\\)`));
      assert.ok(out.includes(key.advice), 'the console tells them apart too');
    }
    const markdown = readFileSync(join(reportsDir, 'client-report.md'), 'utf8');
    for (const text of [out, markdown, JSON.stringify(json)])
      assert.ok(!text.includes(garbage) && !text.includes(otherTenant), 'a key was shown');
  });

  test('a key sent over plain HTTP is exposed: critical in the report, rotate advised', async () => {
    const target = suite.target();
    await admin('DELETE', '/journal');
    const plain = FAULTY_CLIENTS.find((client) => client.userAgent === 'faulty-plain-http');
    await plain?.run(target);
    const { json, out } = await report();
    assert.equal(json?.clients[0]?.exposed, 'critical');
    assert.deepEqual(
      json?.exposedKeys.map((key) => [key.key, key.severity]),
      [['key_acme_prod_read', 'critical']],
    );
    assert.match(json?.exposedKeys[0]?.advice ?? '', /Rotate key_acme_prod_read/);
    assert.match(out, /KEY EXPOSED \(critical\)/);
  });
});
