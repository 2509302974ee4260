// The conditional forms of the rejection probes (specs/conditional-requests.ts): the validators
// the tenants were served, each ETag alone in If-None-Match (once when the tenants share it), and
// If-Modified-Since with the Last-Modified served or, without one, now.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { conditionalProbes } from '../../specs/conditional-requests.ts';

const NOW = new Date('2026-11-28T12:00:00Z');

test('each tenant’s ETag alone, then If-Modified-Since with the Last-Modified served', () => {
  const probes = conditionalProbes(
    {
      validators: {
        own: { etag: '"a"', lastModified: 'Fri, 27 Nov 2026 10:00:00 GMT' },
        other: { etag: 'W/"b"' },
      },
    },
    NOW,
  );
  assert.deepEqual(
    probes.map((probe) => probe.headers),
    [
      { 'If-None-Match': '"a"' },
      { 'If-None-Match': 'W/"b"' },
      { 'If-Modified-Since': 'Fri, 27 Nov 2026 10:00:00 GMT' },
    ],
  );
});

test('an ETag both tenants share is sent once and said to be shared; no validator learned: now', () => {
  const shared = conditionalProbes({ validators: { own: { etag: '"v1"' }, other: { etag: '"v1"' } } }, NOW);
  assert.equal(shared.length, 2);
  assert.match(shared[0]?.note ?? '', /other tenant was served too/);
  assert.deepEqual(conditionalProbes({}, NOW), [
    { note: 'If-Modified-Since now', headers: { 'If-Modified-Since': 'Sat, 28 Nov 2026 12:00:00 GMT' } },
  ]);
});
