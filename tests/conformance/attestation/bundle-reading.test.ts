// What `verify` reads of a bundle, and how: exactly the files SHA256SUMS lists and the statement
// names, each once, within a size bound, never a file it does not list (however large, whatever its
// kind); and a statement that parses one way only, in its schema and predicate type.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PREDICATE_TYPE } from '../../../conformance/attestation/statement.ts';
import { verifyBundle } from '../../../conformance/attestation/verify-bundle.ts';
import {
  vendor,
  sha256,
  report,
  bundleOf,
  mustRules,
  read,
  statementOf,
  writeStatement,
} from '../../support/forger.ts';

test('a statement naming conformance.json twice, the first with a wrong digest, is refused', async () => {
  const directory = bundleOf(report());
  const statement = statementOf(directory);
  const real = statement.subject.find((subject) => subject.name === 'conformance.json');
  assert.ok(real);
  const bytes = Buffer.from(
    `${JSON.stringify({ ...statement, subject: [{ name: 'conformance.json', digest: { sha256: '0'.repeat(64) } }, ...statement.subject] }, null, 2)}\n`,
  );
  writeStatement(directory, bytes, vendor.privateKey);
  const { problems } = await verifyBundle(directory, { trustedKeys: [vendor.publicKey] });
  assert.ok(
    problems.includes('statement.json names conformance.json twice: each subject must be named once.'),
    problems.join('\n'),
  );
  assert.ok(
    problems.some((problem) =>
      /^statement\.json does not match conformance\.json: it gives SHA-256 0{64}/.test(problem),
    ),
  );
});

// The bundle is exactly its signed files.

test('a file added to a signed bundle and appended to the unsigned SHA256SUMS is refused unread, by its name', async () => {
  const directory = bundleOf(report());
  writeFileSync(
    join(directory, 'index.html'),
    '<meta http-equiv="refresh" content="0; url=https://example.test">',
  );
  const sums = read(directory, 'SHA256SUMS');
  writeFileSync(
    join(directory, 'SHA256SUMS'),
    `${sums}${sha256(readFileSync(join(directory, 'index.html')))}  index.html\n`,
  );
  const { problems } = await verifyBundle(directory, { trustedKeys: [vendor.publicKey] });
  assert.deepEqual(problems.length, 1, problems.join('\n'));
  assert.match(
    problems[0] ?? '',
    /^index\.html is not a file of a bundle \(only conformance\.json, .*\): refused unread, though SHA256SUMS lists it\.$/,
  );
});

test('a statement that names "verdict" twice, signed, is refused: a reader may keep either', async () => {
  const directory = bundleOf(report({ failing: [mustRules[0] ?? ''] }));
  const text = read(directory, 'statement.json');
  // The kit's JSON.parse keeps the last "verdict"; another reader keeps the first.
  const twice = text.replace(
    '"verdict": "NOT CONFORMANT",',
    '"verdict": "CONFORMANT",\n    "verdict": "NOT CONFORMANT",',
  );
  assert.notEqual(twice, text);
  writeStatement(directory, Buffer.from(twice), vendor.privateKey);
  const { problems } = await verifyBundle(directory, { trustedKeys: [vendor.publicKey] });
  assert.ok(
    problems.includes(
      'statement.json names $.predicate.verdict twice in one object: a reader may keep either value (refused).',
    ),
    problems.join('\n'),
  );
});

test('a statement that does not match its JSON Schema, or of another predicate type, is refused, naming it', async () => {
  const directory = bundleOf(report());
  const statement = statementOf(directory);
  writeStatement(
    directory,
    Buffer.from(JSON.stringify({ ...statement, predicate: { ...statement.predicate, verdict: 'GREAT' } })),
    vendor.privateKey,
  );
  const { problems } = await verifyBundle(directory, { trustedKeys: [vendor.publicKey] });
  assert.match(
    problems.join('\n'),
    /^statement\.json does not match schemas\/verdict-statement\.schema\.json: \$\.predicate\.verdict/m,
  );
  const old = bundleOf(report());
  writeStatement(
    old,
    Buffer.from(
      JSON.stringify({
        ...statementOf(old),
        predicateType: 'https://conformance.invalid/tenant-auth-conformance/verdict/v1',
      }),
    ),
    vendor.privateKey,
  );
  assert.match(
    (await verifyBundle(old, { trustedKeys: [vendor.publicKey] })).problems.join('\n'),
    new RegExp(
      `predicate type https://conformance\\.invalid/tenant-auth-conformance/verdict/v1; this verify reads ${PREDICATE_TYPE}`,
    ),
  );
});

// What is not listed is never read; what is listed is read within a bound.

test('an unlisted 1.5 GB file and an unlisted pipe are refused unread; a listed file over the bound is refused unread', async () => {
  const directory = bundleOf(report());
  const huge = join(directory, 'exchanges-full.har');
  writeFileSync(huge, '');
  truncateSync(huge, 1.5 * 1024 ** 3); // sparse: no disk, but 1.5 GB to any reader
  // A reader of a pipe with no writer waits for ever: the test would time out if verify read it.
  execFileSync('mkfifo', [join(directory, 'pipe.har')]);
  const { problems } = await verifyBundle(directory, { trustedKeys: [vendor.publicKey] });
  assert.deepEqual(problems.sort(), [
    'exchanges-full.har was added: it is not listed in SHA256SUMS (refused unread).',
    'pipe.har was added: it is not listed in SHA256SUMS (refused unread).',
  ]);
  const listed = bundleOf(report());
  truncateSync(join(listed, 'exchanges.har'), 1.5 * 1024 ** 3);
  const bounded = await verifyBundle(listed, { trustedKeys: [vendor.publicKey] });
  assert.ok(
    bounded.problems.includes(
      `exchanges.har is ${1.5 * 1024 ** 3} bytes, more than the ${1024 ** 3} a bundle's file may have (refused unread).`,
    ),
    bounded.problems.join('\n'),
  );
  const small = await verifyBundle(bundleOf(report()), { maxFileBytes: 100 });
  assert.ok(
    small.problems.some((problem) => /^conformance\.json is \d+ bytes, more than the 100/.test(problem)),
  );
});
