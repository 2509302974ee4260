// The second of verify's two questions (verify-bundle.ts): who signed the statement. The DSSE
// envelope must be canonical (nothing rides after its base64), hold the statement's exact bytes and
// a signature that verifies; it is trusted only when a key the user vouched for verified it. The
// key the bundle carries proves only that nothing changed after signing: anyone can re-sign.
import type { KeyObject } from 'node:crypto';
import { ATTESTATION_FILES } from './bundle-files.ts';
import {
  canonicalBase64,
  IN_TOTO_PAYLOAD_TYPE,
  isEnvelope,
  verifiedSignature,
  type DsseEnvelope,
} from './dsse.ts';
import { namesTwice } from './json-keys.ts';
import { KeyFileError, keyFingerprint, publicKeyFromPem } from './signing-key.ts';

export type SignatureCheck =
  | { state: 'unsigned' }
  /** Verifies with a key the user gave. */
  | { state: 'trusted'; fingerprint: string }
  /** Verifies with the key the bundle carries, which nobody vouched for. */
  | { state: 'untrusted'; fingerprint: string }
  | { state: 'invalid' };

export function checkSignature(
  read: (name: string) => Buffer | undefined,
  present: ReadonlySet<string>,
  statementBytes: Buffer | undefined,
  trustedKeys: readonly KeyObject[],
  problems: string[],
): SignatureCheck {
  const envelopeBytes = read(ATTESTATION_FILES.envelope);
  const signerBytes = read(ATTESTATION_FILES.signerKey);
  if (envelopeBytes === undefined) {
    if (present.has(ATTESTATION_FILES.envelope)) return { state: 'invalid' }; // refused above
    if (signerBytes !== undefined)
      problems.push(`${ATTESTATION_FILES.signerKey} is there but ${ATTESTATION_FILES.envelope} is not.`);
    return { state: 'unsigned' };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(envelopeBytes.toString('utf8'));
  } catch {
    parsed = undefined;
  }
  if (parsed !== undefined && namesTwice(ATTESTATION_FILES.envelope, envelopeBytes, problems))
    return { state: 'invalid' };
  if (!isEnvelope(parsed) || parsed.payloadType !== IN_TOTO_PAYLOAD_TYPE) {
    problems.push(`${ATTESTATION_FILES.envelope} is not a DSSE envelope of an in-toto statement.`);
    return { state: 'invalid' };
  }
  const envelope = canonicalEnvelope(parsed, problems);
  if (!envelope) return { state: 'invalid' };
  if (envelope.signatures.length === 0) {
    problems.push(`${ATTESTATION_FILES.envelope} holds no signature.`);
    return { state: 'invalid' };
  }
  if (statementBytes !== undefined && !Buffer.from(envelope.payload, 'base64').equals(statementBytes))
    problems.push(
      `${ATTESTATION_FILES.envelope} signs a different statement than ${ATTESTATION_FILES.statement}.`,
    );
  const bundled = signerBytes === undefined ? undefined : bundledKey(signerBytes, problems);
  const trusted = trustedKeys.find((key) => verifiedSignature(envelope, key) !== undefined);
  if (trusted) {
    const fingerprint = keyFingerprint(trusted);
    if (bundled && keyFingerprint(bundled) !== fingerprint)
      problems.push(
        `${ATTESTATION_FILES.signerKey} is not the key that signed (${keyFingerprint(bundled)}, signed by ${fingerprint}).`,
      );
    return { state: 'trusted', fingerprint };
  }
  if (!bundled) {
    if (signerBytes === undefined)
      problems.push(
        trustedKeys.length > 0
          ? `${ATTESTATION_FILES.envelope} is not signed by any key given (${trustedKeys.map(keyFingerprint).join(', ')}); it names ${keyIds(envelope)}, and ${ATTESTATION_FILES.signerKey} is missing.`
          : `${ATTESTATION_FILES.envelope} is signed but ${ATTESTATION_FILES.signerKey} is missing: pass --public-key to check it.`,
      );
    return { state: 'invalid' };
  }
  const fingerprint = keyFingerprint(bundled);
  if (verifiedSignature(envelope, bundled) === undefined) {
    problems.push(
      `The signature in ${ATTESTATION_FILES.envelope} does not verify with ${ATTESTATION_FILES.signerKey} (${fingerprint}); it names ${keyIds(envelope)}.`,
    );
    return { state: 'invalid' };
  }
  return { state: 'untrusted', fingerprint };
}

function keyIds(envelope: DsseEnvelope): string {
  return envelope.signatures.map((signature) => signature.keyid).join(', ') || 'no key';
}

/** The envelope when its payload and every signature are canonical base64. */
function canonicalEnvelope(envelope: DsseEnvelope, problems: string[]): DsseEnvelope | undefined {
  const bad = [
    ...(canonicalBase64(envelope.payload) ? [] : ['the payload']),
    ...envelope.signatures.flatMap((signature, index) =>
      canonicalBase64(signature.sig) ? [] : [`signature ${index + 1}`],
    ),
  ];
  if (bad.length === 0) return envelope;
  problems.push(
    `${ATTESTATION_FILES.envelope}: ${bad.join(' and ')} ${bad.length === 1 ? 'is' : 'are'} not canonical base64 (something is written after the encoded bytes, or they are not base64 at all).`,
  );
  return undefined;
}

function bundledKey(pem: Buffer, problems: string[]): KeyObject | undefined {
  try {
    return publicKeyFromPem(pem.toString('utf8'), ATTESTATION_FILES.signerKey);
  } catch (error) {
    if (!(error instanceof KeyFileError)) throw error;
    problems.push(`${ATTESTATION_FILES.signerKey} is not an Ed25519 public key.`);
    return undefined;
  }
}
