// DSSE (Dead Simple Signing Envelope, github.com/secure-systems-lab/dsse), the envelope in-toto
// attestations travel in: the signature covers the pre-authentication encoding (PAE) of the payload
// type and the payload bytes, so that neither can be swapped for another that parses the same.
import { sign, verify, type KeyObject } from 'node:crypto';
import { keyFingerprint } from './signing-key.ts';

export const IN_TOTO_PAYLOAD_TYPE = 'application/vnd.in-toto+json';

export interface DsseEnvelope {
  payloadType: string;
  /** base64 of the payload bytes. */
  payload: string;
  signatures: { keyid: string; sig: string }[];
}

/** `DSSEv1 <len(type)> <type> <len(body)> <body>`, lengths in bytes, as decimal ASCII. */
export function preAuthEncoding(payloadType: string, payload: Buffer): Buffer {
  const type = Buffer.from(payloadType, 'utf8');
  return Buffer.concat([
    Buffer.from(`DSSEv1 ${type.length} `),
    type,
    Buffer.from(` ${payload.length} `),
    payload,
  ]);
}

export function signEnvelope(payload: Buffer, privateKey: KeyObject): DsseEnvelope {
  const signature = sign(null, preAuthEncoding(IN_TOTO_PAYLOAD_TYPE, payload), privateKey);
  return {
    payloadType: IN_TOTO_PAYLOAD_TYPE,
    payload: payload.toString('base64'),
    signatures: [{ keyid: keyFingerprint(privateKey), sig: signature.toString('base64') }],
  };
}

/** The keyid of the first signature `publicKey` verifies, or undefined when none does. */
export function verifiedSignature(envelope: DsseEnvelope, publicKey: KeyObject): string | undefined {
  const encoded = preAuthEncoding(envelope.payloadType, Buffer.from(envelope.payload, 'base64'));
  const good = envelope.signatures.find((signature) => {
    try {
      return verify(null, encoded, publicKey, Buffer.from(signature.sig, 'base64'));
    } catch {
      return false;
    }
  });
  return good?.keyid;
}

/** An envelope as read from a file: the shape, not yet the signature. */
export function isEnvelope(value: unknown): value is DsseEnvelope {
  const candidate = value as Partial<DsseEnvelope> | null;
  return (
    typeof candidate === 'object' &&
    candidate !== null &&
    typeof candidate.payloadType === 'string' &&
    typeof candidate.payload === 'string' &&
    Array.isArray(candidate.signatures) &&
    candidate.signatures.every(
      (signature: unknown) =>
        typeof (signature as { sig?: unknown }).sig === 'string' &&
        typeof (signature as { keyid?: unknown }).keyid === 'string',
    )
  );
}

/**
 * DSSE's base64 (standard, or URL-safe, as its protocol allows) read strictly: the text must be
 * exactly what encoding its bytes gives, so nothing can ride after the payload or the signature.
 */
export function canonicalBase64(text: string): Buffer | undefined {
  const bytes = Buffer.from(text, /[-_]/.test(text) ? 'base64url' : 'base64');
  const encodings = [
    bytes.toString('base64'),
    bytes.toString('base64url'),
    bytes.toString('base64url').padEnd(Math.ceil(bytes.toString('base64url').length / 4) * 4, '='),
  ];
  return encodings.includes(text) ? bytes : undefined;
}
