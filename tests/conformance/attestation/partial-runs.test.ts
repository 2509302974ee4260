// A partial run says it is partial in every place a verdict is shown (the console, every report,
// the badge, `verify`), and a forger who relabels it or rewrites its scope to look complete — even
// re-sealing and re-signing with the vendor's own key — is refused by `verify`.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ConformanceReport } from '../../../schemas/generated/conformance-report.ts';
import { RULES } from '../../../conformance/catalog/rules.ts';
import { paint, summary } from '../../../conformance/report/console.ts';
import { renderMarkdown } from '../../../conformance/report/markdown.ts';
import { renderHtml } from '../../../conformance/report/html.ts';
import { renderJunit } from '../../../conformance/report/junit.ts';
import { renderBadge } from '../../../conformance/attestation/badge.ts';
import { verifyBundle } from '../../../conformance/attestation/verify-bundle.ts';
import {
  vendor,
  report,
  bundleOf,
  read,
  statementOf,
  reseal,
  rerender,
  verifyCli,
  publicKeyFile,
} from '../../support/forger.ts';

// A run over HTTP/1.1 alone of a target that offers HTTP/2 is labelled partial everywhere.

/**
 * `built` shows `label` as its verdict in the console's verdict line, every report, the badge and
 * `verify`'s first line (its bundle signed by the vendor); the console's scope line is returned.
 */
async function assertLabelledEverywhere(
  t: TestContext,
  built: ConformanceReport,
  label: string,
): Promise<string> {
  const console = summary(built, {
    selected: new Set(RULES.map((rule) => rule.id)),
    reportFiles: [],
    painter: paint(false),
  });
  assert.match(console, new RegExp(`^VERDICT: ${label} \\(acme staging, profile ${built.profile}\\)$`, 'm'));
  assert.ok(renderMarkdown(built).includes(`**Verdict: ${label}**`));
  assert.ok(renderHtml(built).includes(label));
  assert.ok(renderJunit(built).includes(label));
  assert.match(
    renderBadge(built),
    // A target file's revoked key is the vendor's word (no keyMinting): the badge says so last.
    new RegExp(
      `<title>tenant-auth conformance: ${label} · ${built.profile} · 2026-11-25 · revoked key: vendor&#39;s word</title>`,
    ),
  );
  const directory = bundleOf(built);
  assert.equal(statementOf(directory).predicate.verdict, built.verdict);
  assert.equal(statementOf(directory).predicate.scope?.protocolsChecked.join(), 'HTTP/1.1');
  const result = await verifyCli(t, [directory, '--public-key', publicKeyFile(vendor.publicKey)]);
  assert.equal(result.code, 0, result.err);
  assert.match(result.out.split('\n')[0] ?? '', new RegExp(`^VERIFIED: ${label} — signed by sha256:`));
  return /^Scope: .*$/m.exec(console)?.[0] ?? '';
}

test('an HTTP/1.1-only run of a target that offers HTTP/2 is "CONFORMANT · HTTP/1.1 only" in the console, every report, the badge and verify', async (t) => {
  const partial = report({ checked: ['HTTP/1.1'] });
  assert.equal(partial.verdict, 'CONFORMANT');
  assert.deepEqual(partial.scope?.protocolsOffered, ['HTTP/1.1', 'HTTP/2']);
  assert.match(
    partial.scope?.partial[0] ?? '',
    /^HTTP\/2 was not checked, but the target offers it \(api\.acme\.example:443\)/,
  );
  const scopeLine = await assertLabelledEverywhere(t, partial, 'CONFORMANT · HTTP/1.1 only');
  assert.match(scopeLine, /^Scope: PARTIAL: HTTP\/2 was not checked/);
  assert.doesNotMatch(scopeLine, /Under --profile strict/, 'the strict note is for strict runs');
  // A complete run carries no label of its scope.
  assert.match(
    renderBadge(report()),
    /<title>tenant-auth conformance: CONFORMANT · default · 2026-11-25 · revoked key: vendor&#39;s word<\/title>/,
  );
});

test('under --profile strict a partial run is "INCOMPLETE · HTTP/1.1 only" in the console, every report, the badge and verify; a target offering HTTP/1.1 alone is complete over it', async (t) => {
  const strict = report({ checked: ['HTTP/1.1'], profile: 'strict' });
  assert.equal(strict.verdict, 'INCOMPLETE');
  const scopeLine = await assertLabelledEverywhere(t, strict, 'INCOMPLETE · HTTP/1.1 only');
  assert.match(
    scopeLine,
    /^Scope: PARTIAL: HTTP\/2 was not checked.* Under --profile strict a partial run is never CONFORMANT/,
  );
  for (const rendered of [renderMarkdown(strict), renderHtml(strict), renderJunit(strict)])
    assert.ok(!rendered.includes('CONFORMANT · HTTP/1.1 only'));
  const complete = report({ checked: ['HTTP/1.1'], offered: ['HTTP/1.1'], profile: 'strict' });
  assert.deepEqual(complete.scope?.partial, []);
  assert.equal(complete.verdict, 'CONFORMANT');
  assert.match(renderBadge(complete), /CONFORMANT · strict/);
});

test('a partial strict run relabelled CONFORMANT (report, statement and badge), re-sealed and re-signed by the vendor, is refused', async () => {
  const directory = bundleOf(report({ checked: ['HTTP/1.1'], profile: 'strict' }));
  const forged = JSON.parse(read(directory, 'conformance.json')) as ConformanceReport;
  forged.verdict = 'CONFORMANT';
  rerender(directory, forged);
  const statement = statementOf(directory);
  statement.predicate.verdict = 'CONFORMANT';
  writeFileSync(join(directory, 'badge.svg'), renderBadge(forged));
  reseal(directory, vendor.privateKey, statement);
  const { problems } = await verifyBundle(directory, { trustedKeys: [vendor.publicKey] });
  assert.deepEqual(problems, [
    'conformance.json says CONFORMANT, but its rules come to INCOMPLETE (profile strict).',
  ]);
});

test('a partial run whose scope was rewritten to look complete, re-sealed and re-signed by the vendor, is refused', async () => {
  const directory = bundleOf(report({ checked: ['HTTP/1.1'] }));
  const forged = JSON.parse(read(directory, 'conformance.json')) as ConformanceReport;
  if (forged.scope) forged.scope.partial = [];
  rerender(directory, forged);
  const statement = statementOf(directory);
  statement.predicate.scope = forged.scope;
  writeFileSync(join(directory, 'badge.svg'), renderBadge(forged));
  reseal(directory, vendor.privateKey, statement);
  const { problems } = await verifyBundle(directory, { trustedKeys: [vendor.publicKey] });
  assert.deepEqual(problems.length, 1, problems.join('\n'));
  assert.match(
    problems[0] ?? '',
    /^conformance\.json's scope does not follow from its protocols and hosts: it should say \["HTTP\/2 was not checked/,
  );
});
