// The facts of a run as the store takes them (storeRun), for tests that store runs directly rather
// than publish bundles: one conformant HTTP/1.1 run of one rule, with what the test changes.
import { createHash } from 'node:crypto';
import type { RunFacts } from '../../../registry/store/runs.ts';

export const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

export function runFacts(deployment: string, changes: Partial<RunFacts> = {}): RunFacts {
  return {
    deployment,
    version: '1.0.0',
    targetName: deployment,
    baseUrl: `https://${deployment}.example/v1`,
    profile: 'strict',
    verdict: 'CONFORMANT',
    protocolsChecked: ['HTTP/1.1'],
    protocolsOffered: ['HTTP/1.1'],
    rulesSelected: 1,
    rulesInCatalog: 1,
    partial: [],
    scope: {},
    options: {},
    kitVersion: '0.1.0',
    catalogSha256: null,
    statementSha256: sha256('statement'),
    reportSha256: sha256('report'),
    signer: `sha256:${'a'.repeat(64)}`,
    publisher: 'acme',
    startedAt: '2026-11-27T00:00:00.000Z',
    warnings: [],
    otherTenant: null,
    checkedBy: 'publisher',
    ...changes,
  };
}
