// The Ed25519 keys a bundle is signed and verified with (node:crypto, PEM files). A key's
// fingerprint is the SHA-256 of its public key's DER (SubjectPublicKeyInfo), which anyone can
// recompute: `openssl pkey -pubin -in KEY.pub -outform DER | sha256sum`. A private key is only
// ever read from its file: never copied, printed or put in an error message.
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
} from 'node:crypto';
import { readFileSync } from 'node:fs';

/** A key file that cannot be used; the message says what to do and never holds the key. */
export class KeyFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KeyFileError';
  }
}

export const KEYGEN_OPENSSL =
  'openssl genpkey -algorithm ed25519 -out signing.key && openssl pkey -in signing.key -pubout -out signing.pub';

export function loadPrivateKey(file: string): KeyObject {
  const pem = readKeyFile(file);
  // A run has no one to type a passphrase: the key is protected by where it is kept instead.
  if (pem.includes('-----BEGIN ENCRYPTED PRIVATE KEY-----'))
    throw new KeyFileError(
      `${file} is encrypted with a passphrase, which a run cannot ask for: keep the key in a secret store and write it unencrypted for the run (openssl pkey -in ${file} -out signing.key).`,
    );
  return ed25519(
    parsePem(pem, file, 'private', () => createPrivateKey(pem)),
    file,
  );
}

/** A public key; a private key file is refused, so that verifying never asks for the secret. */
export function loadPublicKey(file: string): KeyObject {
  return publicKeyFromPem(readKeyFile(file), file);
}

/**
 * A file of trusted keys: one or more Ed25519 public keys in PEM, one after the other (lines
 * outside the PEM blocks, e.g. a comment naming whose key it is, are ignored).
 */
export function loadTrustedKeys(file: string): KeyObject[] {
  const text = readKeyFile(file);
  const blocks = text.match(/-----BEGIN [A-Z ]+-----[\s\S]*?-----END [A-Z ]+-----/g) ?? [];
  if (blocks.length === 0)
    throw new KeyFileError(
      `${file} holds no PEM key: list the Ed25519 public keys you trust, one PEM block after another.`,
    );
  return blocks.map((block, index) => publicKeyFromPem(`${block}\n`, `${file} (key ${index + 1})`));
}

/** `source` names where the PEM came from, for the messages. */
export function publicKeyFromPem(pem: string, source: string): KeyObject {
  if (/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(pem))
    throw new KeyFileError(
      `${source} is a private key: verify needs only the public key (make it with: openssl pkey -in ${source} -pubout -out signing.pub), and the private key should not leave the signer.`,
    );
  return ed25519(
    parsePem(pem, source, 'public', () => createPublicKey(pem)),
    source,
  );
}

/** `sha256:` and the hex SHA-256 of the public key's DER; also the DSSE keyid. */
export function keyFingerprint(key: KeyObject): string {
  const publicKey = key.type === 'private' ? createPublicKey(key) : key;
  const der = publicKey.export({ type: 'spki', format: 'der' });
  return `sha256:${createHash('sha256').update(der).digest('hex')}`;
}

export function publicKeyPem(key: KeyObject): string {
  const publicKey = key.type === 'private' ? createPublicKey(key) : key;
  return publicKey.export({ type: 'spki', format: 'pem' }).toString();
}

export function generateKeyPair(): { privatePem: string; publicPem: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

function readKeyFile(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new KeyFileError(
      `Cannot read the key file ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'}): check the path; make a key pair with \`tenant-auth-conformance keygen\`.`,
    );
  }
}

function parsePem(pem: string, file: string, kind: 'private' | 'public', parse: () => KeyObject): KeyObject {
  if (pem.length === 0) throw new KeyFileError(`${file} is empty: give an Ed25519 ${kind} key in PEM.`);
  try {
    return parse();
  } catch {
    // node's message may quote the input's start: it is not passed on.
    throw new KeyFileError(
      `${file} is not a PEM ${kind} key: give an Ed25519 ${kind} key in PEM, as \`tenant-auth-conformance keygen\` or \`${KEYGEN_OPENSSL}\` makes it.`,
    );
  }
}

function ed25519(key: KeyObject, file: string): KeyObject {
  if (key.asymmetricKeyType !== 'ed25519')
    throw new KeyFileError(
      `${file} is a ${key.asymmetricKeyType ?? 'unknown'} key; bundles are signed with Ed25519: make one with \`tenant-auth-conformance keygen\` or \`${KEYGEN_OPENSSL}\`.`,
    );
  return key;
}
