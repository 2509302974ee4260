// A revoked key sent over plain HTTP: the client broke CLIENT-HTTPS-ONLY, and the report says so,
// but the key grants nothing any more and the admin API refuses to rotate it (`key_revoked`), so
// the advice must not be to rotate it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { judgeClients } from '../../../conformance/client-report/judge.ts';
import { renderConsole } from '../../../conformance/client-report/render.ts';
import type { JournalEntry } from '../../../schemas/generated/journal.ts';

function plainRequest(key: string, keyRevoked: boolean): JournalEntry {
  return {
    time: '2026-01-01T00:00:00.000Z',
    transport: 'http',
    protocol: 'h1',
    tenant: 'acme',
    environment: 'production',
    host: 'tenant',
    sni: 'not-applicable',
    method: 'GET',
    path: '/v1/customers',
    status: 403,
    errorCode: 'https_required',
    userAgent: 'sdk/1.0',
    authorization: 'bearer',
    key,
    keyEnvironment: 'production',
    keyRevoked,
    contentType: 'missing',
    accept: 'json',
    hasBody: false,
  };
}

function judge(entries: JournalEntry[]): ReturnType<typeof judgeClients> {
  return judgeClients({
    journal: { object: 'journal', tenants: [], data: entries },
    keys: new Map(),
    server: 'https://admin.localhost/v1',
    window: {},
    suite: { name: 'test', version: '0' },
    generatedAt: new Date('2026-01-01T00:00:01Z'),
  });
}

test('a revoked key sent over plain HTTP: no advice to rotate it, the client still fails HTTPS-only', () => {
  const report = judge([plainRequest('key_acme_prod_revoked', true)]);
  const advice = report.exposedKeys[0]?.advice ?? '';
  // Neither the order to rotate it nor the admin API call, which would answer key_revoked.
  assert.doesNotMatch(advice, /Rotate |\/rotate/);
  assert.match(advice, /key_acme_prod_revoked/);
  assert.match(advice, /already revoked/);
  const httpsOnly = report.clients[0]?.rules.find((rule) => rule.id === 'CLIENT-HTTPS-ONLY');
  assert.equal(httpsOnly?.verdict, 'fail');
  assert.doesNotMatch(httpsOnly?.message ?? '', /rotate it/);
  const console = renderConsole(report, []);
  assert.match(console, /KEY EXPOSED \(critical\): already revoked, nothing to rotate/);
  assert.doesNotMatch(console, /rotate it/);
});

test('a live key sent over plain HTTP is still to be rotated', () => {
  const report = judge([plainRequest('key_acme_prod_read', false)]);
  assert.match(report.exposedKeys[0]?.advice ?? '', /^Rotate key_acme_prod_read now/);
  const httpsOnly = report.clients[0]?.rules.find((rule) => rule.id === 'CLIENT-HTTPS-ONLY');
  assert.match(httpsOnly?.message ?? '', /rotate it/);
  assert.match(renderConsole(report, []), /KEY EXPOSED \(critical\): rotate it/);
});
