// What the tests of this folder share: a port where nothing listens, writing a target file, and
// the assertion that a run's report says CONFORMANT with exactly the expected rule verdicts.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { RULES } from '../../conformance/rules.ts';
import type { ConformanceRun } from '../support/conformance-run.ts';

/**
 * A loopback port with nothing listening: bound by the system, then released. Plain HTTP
 * pointed there is refused, the way a deployment that serves HTTPS only answers it.
 */
export async function unusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((closed) => server.close(() => closed()));
  return port;
}

/** Writes `target` as JSON in `directory`; returns the file's path. */
export function writeTargetFile(directory: string, name: string, target: object): string {
  const file = join(directory, name);
  writeFileSync(file, JSON.stringify(target, null, 2));
  return file;
}

/**
 * The run's report says CONFORMANT, exit 0, every rule of the catalog passed — except
 * `warnings`, which must be exactly those that warned. Nothing is left not evaluated.
 */
export function assertConformant(run: ConformanceRun, warnings: readonly string[] = []): void {
  const rules = run.report?.rules ?? [];
  const byId = new Map(rules.map((rule) => [rule.id, rule]));
  const unexpected = RULES.flatMap((rule) => {
    const expected = warnings.includes(rule.id) ? 'warning' : 'pass';
    const result = byId.get(rule.id);
    if (result?.verdict === expected) return [];
    return [
      `${rule.id} (${rule.level}): ${result?.verdict ?? 'absent from the report'}, expected ${expected}` +
        (result?.message ? ` — ${result.message}` : ''),
    ];
  });
  assert.deepEqual(unexpected, [], `Rules with another verdict than expected.\n${run.stderr}`);
  assert.equal(rules.length, RULES.length, 'one verdict per rule of the catalog, no more');
  assert.equal(run.report?.verdict, 'CONFORMANT');
  assert.match(run.stdout, /VERDICT: CONFORMANT/);
  assert.equal(run.exitCode, 0, run.stderr);
}
