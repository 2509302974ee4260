// What a run took on the vendor's word is said wherever its certificate is: the report's scope,
// the signed statement, the badge (for the revoked key) and `verify`. The red team's route: a
// target file whose `credentials.revoked` names a string that never was a key passes
// KEY-REVOKED-REJECTED against a server that accepts revoked keys; without `keyMinting` the
// certificate must say that the revoked key is the vendor's word. The control: a run whose revoked
// key the kit minted and revoked itself (target.keysMinted) carries no such line or mark.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ConformanceReport } from '../../../schemas/generated/conformance-report.ts';
import { REVOKED_KEY_MARK, renderBadge } from '../../../conformance/attestation/badge.ts';
import { verifyBundle } from '../../../conformance/attestation/verify-bundle.ts';
import { vendorsWordOf } from '../../../conformance/report/vendor-inputs.ts';
import {
  bundleOf,
  publicKeyFile,
  read,
  report,
  reseal,
  rerender,
  statementOf,
  vendor,
  verifyCli,
} from '../../support/forger.ts';

const fileTarget = (keysMinted?: string[]): ConformanceReport['target'] => ({
  name: 'acme staging',
  mode: 'file',
  baseUrl: 'https://api.acme.example/v1',
  ...(keysMinted ? { keysMinted } : {}),
});

const revokedLine = (lines: readonly string[] | undefined): string | undefined =>
  lines?.find((line) => line.startsWith('credentials.revoked '));

test("without key minting, the scope, the statement, the badge and verify say the revoked key is the vendor's word", async (t) => {
  const built = report({ target: fileTarget() });
  const lines = built.scope?.vendorsWord;
  assert.deepEqual(lines, vendorsWordOf({ mode: 'file' }));
  assert.match(revokedLine(lines) ?? '', /never was a key passes KEY-REVOKED-REJECTED/);

  const directory = bundleOf(built);
  assert.deepEqual(
    statementOf(directory).predicate.scope?.vendorsWord,
    lines,
    'the signed statement carries them',
  );
  // The reports a reader opens say them too.
  assert.match(
    read(directory, 'conformance.md'),
    /^\| Vendor's word \| .*credentials\.revoked \(target file\): the vendor's word that the key was revoked/m,
  );
  assert.match(
    read(directory, 'conformance.html'),
    /Vendor(&#39;|')s word[^]*credentials\.revoked \(target file\)/,
  );
  const badge = read(directory, 'badge.svg');
  assert.ok(
    badge.includes(`CONFORMANT · default · 2026-11-25 · ${REVOKED_KEY_MARK.replace("'", '&#39;')}`),
    badge,
  );

  const verified = await verifyCli(t, [directory, '--public-key', publicKeyFile(vendor.publicKey)]);
  assert.equal(verified.code, 0, verified.out + verified.err);
  for (const line of lines ?? []) assert.ok(verified.out.includes(`Vendor's word: ${line}`), line);
  assert.match(verified.out, /Badge: .*revoked key: vendor's word/);
});

test('with the revoked key minted and revoked by the kit, neither the scope nor the badge says it is the vendor’s word', async (t) => {
  const built = report({ target: fileTarget(['fullAccess', 'revoked']) });
  assert.equal(revokedLine(built.scope?.vendorsWord), undefined);
  // The other inputs still rest on the vendor's word, and are still said.
  assert.ok((built.scope?.vendorsWord ?? []).some((line) => line.startsWith('hosts ')));
  assert.ok(!renderBadge(built).includes(REVOKED_KEY_MARK.replace("'", '&#39;')));
  const verified = await verifyCli(t, [bundleOf(built), '--public-key', publicKeyFile(vendor.publicKey)]);
  assert.equal(verified.code, 0, verified.out + verified.err);
  assert.doesNotMatch(verified.out, /Vendor's word: credentials\.revoked/);
  assert.match(verified.out, /Vendor's word: hosts \(target file\)/);
});

test('the embedded reference: the kit chose every input, so nothing is the vendor’s word', () => {
  const built = report({
    target: { name: 'reference', mode: 'embedded', baseUrl: 'https://acme.api.localhost/v1' },
  });
  assert.equal(built.scope?.vendorsWord, undefined);
  assert.ok(!renderBadge(built).includes('vendor'));
});

test("a forger who drops the revoked key's line from a re-signed bundle is refused", async () => {
  const directory = bundleOf(report({ target: fileTarget() }));
  const forged = JSON.parse(read(directory, 'conformance.json')) as ConformanceReport;
  const scope = forged.scope;
  assert.ok(scope?.vendorsWord);
  scope.vendorsWord = scope.vendorsWord.filter((line) => line !== revokedLine(scope.vendorsWord));
  // Every file made again from the forged report, the statement too, and signed by the vendor.
  rerender(directory, forged);
  writeFileSync(join(directory, 'badge.svg'), renderBadge(forged));
  const statement = statementOf(directory);
  statement.predicate = { ...statement.predicate, scope };
  reseal(directory, vendor.privateKey, statement);
  const { problems } = await verifyBundle(directory, { trustedKeys: [vendor.publicKey] });
  assert.equal(problems.length, 1, problems.join('\n'));
  assert.match(
    problems[0] ?? '',
    /scope does not say what the run took on the vendor's word: it should say .*credentials\.revoked/,
  );
});
