// JSON.parse reads arrays nested 200 000 deep; the walk that looks for members named twice went
// down them by recursion, and `verify` ended in "Maximum call stack size exceeded" (exit 3)
// instead of naming the file. Nesting past any report's is refused, with the file named.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RULES } from '../../../conformance/catalog/rules.ts';
import { buildReport } from '../../../conformance/report/build-report.ts';
import type { TestOutcome } from '../../../conformance/report/verdict.ts';
import { writeReports } from '../../../conformance/report/write-reports.ts';
import { writeBundle } from '../../../conformance/attestation/bundle.ts';
import { duplicateKeys, MAX_JSON_DEPTH, TooDeepError } from '../../../conformance/attestation/json-keys.ts';
import { verifyBundle } from '../../../conformance/attestation/verify-bundle.ts';
import { scratchDirectory } from '../../support/scratch.ts';

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

test('JSON nested past the bound is refused by name, and nesting within it is walked', () => {
  assert.deepEqual(
    duplicateKeys(`${'['.repeat(MAX_JSON_DEPTH - 1)}{"a":1,"a":2}${']'.repeat(MAX_JSON_DEPTH - 1)}`),
    [`$${'[0]'.repeat(MAX_JSON_DEPTH - 1)}.a`],
  );
  assert.throws(
    () => duplicateKeys(`${'['.repeat(MAX_JSON_DEPTH + 1)}${']'.repeat(MAX_JSON_DEPTH + 1)}`),
    TooDeepError,
  );
  // Siblings do not add up: depth is how deep, not how many.
  assert.deepEqual(duplicateKeys(`[${Array.from({ length: 1000 }, () => '[[]]').join(',')}]`), []);
});

test('verify names a statement nested 200 000 deep instead of crashing', async () => {
  const outcomes = new Map<string, TestOutcome[]>(RULES.map((rule) => [rule.id, [{ status: 'passed' }]]));
  const report = buildReport(outcomes, {
    target: { name: 'acme', mode: 'file', baseUrl: 'https://acme.api.acme-saas.example/v1' },
    profile: 'strict',
    startedAt: new Date('2026-11-27T10:00:00Z'),
    durationMs: 20_000,
  });
  const reports = scratchDirectory('deep-json-');
  writeReports(report, { exchanges: [] }, reports);
  const bundle = writeBundle(report, reports).directory;
  const statementFile = join(bundle, 'statement.json');
  const text = readFileSync(statementFile, 'utf8').trimEnd();
  const deep = `${text.slice(0, -1)}, "zz": ${'['.repeat(200_000)}${']'.repeat(200_000)}}\n`;
  assert.doesNotThrow(() => JSON.parse(deep), 'JSON.parse reads it');
  writeFileSync(statementFile, deep);
  const manifest = join(bundle, 'SHA256SUMS');
  writeFileSync(
    manifest,
    readFileSync(manifest, 'utf8').replace(
      /^[0-9a-f]{64}(?= {2}statement\.json$)/m,
      sha256(Buffer.from(deep)),
    ),
  );
  const { problems } = await verifyBundle(bundle);
  assert.ok(
    problems.includes(
      `statement.json is nested more than ${MAX_JSON_DEPTH} levels deep (at $.zz${'[0]'.repeat(MAX_JSON_DEPTH - 1)}): no bundle's file is (refused).`,
    ),
    problems.join('\n'),
  );
});
