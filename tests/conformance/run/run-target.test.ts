// The run's target in two steps (conformance/run/run-target.ts): declared from the file without any
// key, then bound to the keys of the environment it runs in — and never silently without one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  declareEmbeddedTarget,
  fixtureKeyEnvironment,
} from '../../../conformance/deployment/embedded-target.ts';
import { ENV } from '../../../conformance/env.ts';
import { mintedVariable } from '../../../conformance/deployment/key-minting.ts';
import { bindTarget } from '../../../conformance/run/run-target.ts';
import {
  declareTarget,
  TargetError,
  type TargetDeclaration,
} from '../../../conformance/deployment/target.ts';
import { scratchDirectory } from '../../support/scratch.ts';

const KEY = 'test-key-value-0123456789abcdef';

function targetFile(content: object): string {
  const file = join(scratchDirectory('run-target-'), 'target.json');
  writeFileSync(file, JSON.stringify(content));
  return file;
}

test('a declared target names its keys by variable and holds no key; binding reads them', () => {
  const file = targetFile({
    baseUrl: 'https://acme.api.example.com/v1',
    credentials: { fullAccess: 'MY_KEY' },
  });
  const env = { MY_KEY: KEY };
  const declared = declareTarget(file, env);
  assert.deepEqual(declared.credentialVariables, { fullAccess: 'MY_KEY' });
  assert.ok(!JSON.stringify(declared).includes(KEY), 'the declaration travels in configs: no key in it');
  const bound = bindTarget(declared, env);
  assert.equal(bound.credentials.fullAccess, KEY);
  assert.equal(bound.baseUrl, declared.baseUrl);
  // Checked by `npm run typecheck`: a bound target, keys and all, never passes for a declaration
  // (which travels in configs and batch plans).
  // @ts-expect-error -- credentials are never part of a declaration
  const asDeclaration: TargetDeclaration = bound;
  assert.equal(asDeclaration.credentials, bound.credentials);
});

test('binding in an environment without a declared key is a target error naming the variable', () => {
  const file = targetFile({
    baseUrl: 'https://acme.api.example.com/v1',
    credentials: { fullAccess: 'MY_KEY' },
  });
  const declared = declareTarget(file, { MY_KEY: KEY });
  assert.throws(
    () => bindTarget(declared, {}),
    (error: Error) => error instanceof TargetError && /MY_KEY is not set/.test(error.message),
  );
});

test('keys minted by the set-up project are bound under their own variables', () => {
  const file = targetFile({
    baseUrl: 'https://acme.api.example.com/v1',
    keyMinting: { adminBaseUrl: 'https://admin.example.com/v1', adminToken: 'ADMIN_TOKEN', probe: true },
  });
  const declared = declareTarget(file, { ADMIN_TOKEN: 'x'.repeat(40) });
  assert.equal(bindTarget(declared, {}).credentials.probe, undefined, 'not minted yet');
  const bound = bindTarget(declared, { [mintedVariable('probe')]: KEY });
  assert.equal(bound.credentials.probe, KEY);
  assert.equal(bound.credentialVariables.probe, mintedVariable('probe'));
});

test('the embedded target is bound to the ports its server printed, and to the fixture keys', () => {
  const declared = declareEmbeddedTarget({});
  assert.equal(declared.mode, 'embedded');
  const env = {
    ...fixtureKeyEnvironment(),
    [ENV.referenceHttpsPort]: '41443',
    [ENV.referenceHttpPort]: '41080',
  };
  const bound = bindTarget(declared, env);
  assert.match(bound.baseUrl, /:41443\/v1$/);
  assert.match(bound.plainHttpBaseUrl, /^http:\/\/[^/]+:41080\/v1$/);
  assert.ok(Object.values(bound.credentials).length > 0);
});
