// The pages print what publishers wrote (a target's name, its base URL, an option's value): every
// value is escaped, so a report cannot put markup or script into the registry's pages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { certifiedPage, deploymentPage, runPage } from '../../../registry/web/pages.ts';
import type { StoredRun } from '../../../registry/store/runs.ts';

const HOSTILE = '<script>alert(1)</script><img src=x onerror="alert(2)">';

const run: StoredRun = {
  id: 7,
  bundleSha256: 'a'.repeat(64),
  deployment: 'acme',
  version: '1.0.0',
  targetName: HOSTILE,
  baseUrl: `https://api.acme.example/v1?q=${HOSTILE}`,
  profile: 'strict',
  verdict: 'CONFORMANT',
  protocolsChecked: ['HTTP/1.1'],
  protocolsOffered: ['HTTP/1.1'],
  rulesSelected: 1,
  rulesInCatalog: 1,
  partial: [HOSTILE],
  scope: null,
  options: { note: HOSTILE },
  kitVersion: HOSTILE,
  catalogSha256: null,
  statementSha256: 'b'.repeat(64),
  reportSha256: 'c'.repeat(64),
  signer: `sha256:${'d'.repeat(64)}`,
  publisher: 'acme',
  startedAt: '2026-11-25T10:00:00.000Z',
  publishedAt: '2026-11-25T10:05:00.000Z',
  warnings: [HOSTILE],
  otherTenant: HOSTILE,
  checkedBy: 'publisher',
  yanked: { at: '2026-11-26T10:00:00.000Z', by: 'acme', reason: HOSTILE },
  filesRemovedAt: null,
};

test('a hostile target name, base URL, option or scope is text on every page, never markup', () => {
  const pages = [
    certifiedPage([run], []),
    deploymentPage(
      'acme',
      [run],
      [{ runId: 7, ruleId: HOSTILE, level: 'MUST', protocol: 'all', verdict: HOSTILE }],
      [],
      { release: { version: HOSTILE, recordedBy: 'acme', recordedAt: '2026-11-26T10:00:00.000Z' } },
    ),
    runPage(run, [{ ruleId: HOSTILE, level: 'MUST', protocol: 'all', verdict: 'pass' }], [HOSTILE]),
  ];
  for (const html of pages) {
    assert.doesNotMatch(html, /<script|<img src=x|onerror="/);
  }
  assert.match(pages[2] ?? '', /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
});
