// Trust is not integrity: `verify` trusts a bundle only when a key the user gave signed it, says
// NOT TRUSTED first otherwise, and reads the DSSE envelope strictly. And, not our verifier: the
// envelope and the statement checked with node:crypto alone, as the DSSE and in-toto specifications
// read.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPublicKey, verify } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ConformanceReport } from '../../../schemas/generated/conformance-report.ts';
import { renderBadge } from '../../../conformance/attestation/badge.ts';
import { publicKeyPem } from '../../../conformance/attestation/signing-key.ts';
import type { Statement } from '../../../conformance/attestation/statement.ts';
import { verifyBundle } from '../../../conformance/attestation/verify-bundle.ts';
import {
  vendor,
  forger,
  sha256,
  report,
  bundleOf,
  read,
  statementOf,
  reseal,
  rerender,
  verifyCli,
  publicKeyFile,
} from '../../support/forger.ts';
import { scratchDirectory } from '../../support/scratch.ts';

test('a report edited and re-signed with another key (signer.pub.pem replaced): exit 4, "NOT TRUSTED" first, naming the key', async (t) => {
  const directory = bundleOf(report());
  const forged = JSON.parse(read(directory, 'conformance.json')) as ConformanceReport;
  forged.target.name = 'acme production';
  rerender(directory, forged);
  const statement = statementOf(directory);
  statement.predicate.target.name = 'acme production';
  writeFileSync(join(directory, 'badge.svg'), renderBadge(forged));
  reseal(directory, forger.privateKey, statement);
  const bare = await verifyCli(t, [directory]);
  assert.equal(bare.code, 4, bare.err);
  // The trust word alone first: a script looking for CONFORMANT there does not read a pass.
  const [first, second, third] = bare.out.split('\n');
  assert.equal(first, 'NOT TRUSTED');
  assert.match(second ?? '', /^ {2}intact, but signed by sha256:[0-9a-f]{64}, a key you did not give/);
  assert.match(third ?? '', /^ {2}What it claims, vouched for by no key you gave: CONFORMANT$/);
  const withKey = await verifyCli(t, [directory, '--public-key', publicKeyFile(vendor.publicKey)]);
  assert.equal(withKey.code, 4);
  assert.ok(withKey.out.includes('not by a key you gave'), withKey.out);
});

test('a bundle stripped of its signature and re-sealed: exit 4, "NOT TRUSTED … not signed" first', async (t) => {
  const directory = bundleOf(report());
  reseal(directory, undefined);
  for (const args of [[directory], [directory, '--public-key', publicKeyFile(vendor.publicKey)]]) {
    const result = await verifyCli(t, args);
    assert.equal(result.code, 4, result.err);
    assert.deepEqual(result.out.split('\n').slice(0, 2), [
      'NOT TRUSTED',
      '  intact, but not signed: anyone could have written it.',
    ]);
  }
});

test('a file of trusted keys: exit 0 when one of them signed', async (t) => {
  const directory = bundleOf(report());
  const file = join(scratchDirectory('trusted-'), 'trusted.pem');
  writeFileSync(
    file,
    `# a stranger\n${publicKeyPem(forger.publicKey)}# the vendor\n${publicKeyPem(vendor.publicKey)}`,
  );
  const result = await verifyCli(t, [directory, '--trusted-keys', file]);
  assert.equal(result.code, 0, result.err);
  assert.match(result.out, /^VERIFIED: CONFORMANT — signed by/);
});

test('base64 with junk after the payload or the signature is refused', async () => {
  for (const field of ['payload', 'sig'] as const) {
    const directory = bundleOf(report());
    const path = join(directory, 'statement.dsse.json');
    const envelope = JSON.parse(read(directory, 'statement.dsse.json')) as {
      payload: string;
      signatures: { sig: string }[];
    };
    if (field === 'payload') envelope.payload += 'QUJD';
    else if (envelope.signatures[0]) envelope.signatures[0].sig += '!!junk';
    writeFileSync(path, JSON.stringify(envelope));
    const manifest = read(directory, 'SHA256SUMS').replace(
      /^[0-9a-f]{64}(?= {2}statement\.dsse\.json$)/m,
      sha256(readFileSync(path)),
    );
    writeFileSync(join(directory, 'SHA256SUMS'), manifest);
    const { problems } = await verifyBundle(directory, { trustedKeys: [vendor.publicKey] });
    assert.deepEqual(
      problems,
      [
        `statement.dsse.json: ${field === 'payload' ? 'the payload' : 'signature 1'} is not canonical base64 (something is written after the encoded bytes, or they are not base64 at all).`,
      ],
      field,
    );
  }
});

// Not our verifier.
test('an independent DSSE / in-toto check of a signed bundle, with node:crypto alone', () => {
  const directory = bundleOf(report());
  const envelope = JSON.parse(read(directory, 'statement.dsse.json')) as {
    payloadType: string;
    payload: string;
    signatures: { keyid: string; sig: string }[];
  };
  const payload = Buffer.from(envelope.payload, 'base64');
  const type = Buffer.from(envelope.payloadType, 'utf8');
  const pae = Buffer.concat([
    Buffer.from(`DSSEv1 ${type.length} `),
    type,
    Buffer.from(` ${payload.length} `),
    payload,
  ]);
  const key = createPublicKey(read(directory, 'signer.pub.pem'));
  const [signature] = envelope.signatures;
  assert.ok(signature);
  assert.equal(envelope.payloadType, 'application/vnd.in-toto+json');
  assert.ok(
    verify(null, pae, key, Buffer.from(signature.sig, 'base64')),
    'the signature covers PAE(type, payload)',
  );
  assert.equal(signature.keyid, `sha256:${sha256(key.export({ type: 'spki', format: 'der' }))}`);
  assert.ok(
    payload.equals(readFileSync(join(directory, 'statement.json'))),
    'the payload is statement.json, byte for byte',
  );
  const statement = JSON.parse(payload.toString('utf8')) as Statement;
  assert.equal(statement._type, 'https://in-toto.io/Statement/v1');
  assert.equal(statement.predicateType, 'urn:tenant-auth-conformance:verdict:v2');
  assert.equal(new Set(statement.subject.map((subject) => subject.name)).size, statement.subject.length);
  for (const subject of statement.subject)
    assert.equal(subject.digest.sha256, sha256(readFileSync(join(directory, subject.name))), subject.name);
  for (const line of read(directory, 'SHA256SUMS').trim().split('\n')) {
    const [digest, name] = line.split('  ');
    assert.equal(sha256(readFileSync(join(directory, name ?? ''))), digest, name);
  }
});
