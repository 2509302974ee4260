// The guard against false fails that a reference-only test cannot give: a second, independently
// written correct implementation (./server.ts: Fastify, its own key format, response shape,
// sandbox host and certificates, plain HTTP not listening) must be CONFORMANT under both
// profiles, with every rule passed — none warned, none left not evaluated.
import { describe } from 'node:test';
import assert from 'node:assert/strict';
import { independentDeploymentPerSuite, runAgainst } from '../support/independent-deployment.ts';
import { scanDirectory, secretForms } from '../support/artifact-scan.ts';
import { assertConformant } from './run-support.ts';
import { testUnderBothProfiles } from '../support/both-profiles.ts';

describe('an independent implementation of the spec (Fastify)', () => {
  const deployment = independentDeploymentPerSuite();

  testUnderBothProfiles(
    (profile) => `--profile ${profile}: CONFORMANT, every rule passed, no key in any report`,
    () => runAgainst(deployment(), ['--profile', 'strict']),
    (run) => {
      assertConformant(run);
      const { findings, filesScanned } = scanDirectory(run.reportDir, secretForms(deployment().target.env));
      assert.ok(filesScanned > 0, 'the run wrote reports');
      assert.deepEqual(findings, []);
    },
  );
});
