// Why a rule is not evaluated, in the terms of what the user configured: the line to add to their
// target file, or for a target by URL (the file the kit wrote from the options) the option or the
// variable to give — never a target file the user never saw.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { notEvaluatedReason } from '../../../conformance/deployment/inputs.ts';
import { URL_TARGET_FILE } from '../../../conformance/deployment/url-target.ts';

test('a target file: the lines to add to it', () => {
  const reason = notEvaluatedReason(['otherTenantBaseUrl', 'credentials.readOnly'], '/work/our-target.jsonc');
  assert.match(reason, /the target file lacks otherTenantBaseUrl, credentials\.readOnly/);
  assert.match(reason, /"credentials": \{ "readOnly": "CONFORMANCE_KEY_READ_ONLY" \}/);
});

test('a target by URL: the option and the variable, no target file', () => {
  const reason = notEvaluatedReason(
    ['otherTenantBaseUrl', 'credentials.readOnly'],
    join('/tmp/run-state', URL_TARGET_FILE),
  );
  assert.doesNotMatch(reason, /target file/);
  assert.match(
    reason,
    /--other-tenant-base-url URL \(run\) or otherTenantBaseUrl \(conformanceProjects' target\)/,
  );
  assert.match(reason, /CONFORMANCE_KEY_READ_ONLY is not set: export it with a production Read Only key/);
});
