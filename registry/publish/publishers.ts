// Who may publish: a publishers file the certifier keeps, one entry per publisher with the SHA-256
// of its token (the token itself is shown once, when made, and stored nowhere) and the Ed25519
// public keys its bundles may be signed with. An entry with no keys is a reader (reads guarded by
// --private-reads). The registry reads the file at start and again whenever it changes
// (PublishersFile); a bundle is trusted only when one of its publisher's own keys signed it.
import { createHash, randomBytes, timingSafeEqual, type KeyObject } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { KeyFileError, keyFingerprint, publicKeyFromPem } from '../../conformance/attestation/signing-key.ts';

export interface Publisher {
  name: string;
  tokenSha256: string;
  keys: KeyObject[];
  /** The registry's operator: may yank any run, apply the retention policy and read the audit list. */
  operator: boolean;
}

interface PublisherEntry {
  name: string;
  tokenSha256: string;
  /** PEM public keys. */
  keys: string[];
  operator?: boolean;
}

/** The token's shape: a prefix that names it (secret scanners find it) and 32 random bytes. */
export const TOKEN_PATTERN = /^tacr_[A-Za-z0-9_-]{43}$/;
export const PUBLISHER_NAME = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;

export class PublishersFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PublishersFileError';
  }
}

export const tokenDigest = (token: string): string =>
  createHash('sha256').update(token, 'utf8').digest('hex');

export function newToken(): string {
  return `tacr_${randomBytes(32).toString('base64url')}`;
}

/** The entries of `file`, from `text` when its content was read already. */
function readEntries(file: string, text?: string): PublisherEntry[] {
  if (text === undefined && !existsSync(file)) return [];
  let data: unknown;
  try {
    data = JSON.parse(text ?? readFileSync(file, 'utf8'));
  } catch {
    throw new PublishersFileError(
      `${file} is not JSON: it should be {"publishers": [...]} as registry publisher writes it.`,
    );
  }
  const entries = (data as { publishers?: unknown } | null)?.publishers;
  if (!Array.isArray(entries))
    throw new PublishersFileError(`${file} has no "publishers" list: it should be {"publishers": [...]}.`);
  return entries.map((entry: unknown, index) => {
    const { name, tokenSha256, keys, operator } = (entry ?? {}) as Partial<PublisherEntry>;
    if (
      typeof name !== 'string' ||
      !PUBLISHER_NAME.test(name) ||
      typeof tokenSha256 !== 'string' ||
      !/^[0-9a-f]{64}$/.test(tokenSha256) ||
      !Array.isArray(keys) ||
      !keys.every((key) => typeof key === 'string') ||
      (operator !== undefined && typeof operator !== 'boolean')
    )
      throw new PublishersFileError(
        `${file}: publisher ${index + 1} is not {"name", "tokenSha256", "keys": [PEM…]} (a name of lower-case letters, digits and dashes; a SHA-256 in hex; "operator" true or false when given).`,
      );
    return { name, tokenSha256, keys, ...(operator === true ? { operator } : {}) };
  });
}

export function loadPublishers(file: string, text?: string): Publisher[] {
  return readEntries(file, text).map((entry) => ({
    name: entry.name,
    tokenSha256: entry.tokenSha256,
    operator: entry.operator === true,
    keys: entry.keys.map((pem, index) => publicKeyFromPem(pem, `${file}: ${entry.name}'s key ${index + 1}`)),
  }));
}

/** The publishers a registry accepts now. */
export interface PublisherSource {
  current(): readonly Publisher[];
}

/**
 * The publishers file as it is now. A publisher added or a token replaced (`registry publisher`)
 * counts from the next request, without a restart: a replaced token, perhaps one that leaked, must
 * stop working when the operator replaces it, not at the next restart. The file is read at each
 * request that needs a token and parsed again when its content changed (a time or an inode may
 * not: a rename can reuse an inode, a new token keeps the size). A file that is gone or no longer
 * reads is said through `warn`, and until it reads again no token is accepted: the registry fails
 * closed rather than trust the publishers of a file the operator was changing.
 */
export class PublishersFile implements PublisherSource {
  readonly #file: string;
  readonly #warn: (message: string) => void;
  #content: string | undefined;
  #publishers: readonly Publisher[];

  /** Throws PublishersFileError or KeyFileError when the file does not read at start. */
  constructor(file: string, warn: (message: string) => void) {
    this.#file = file;
    this.#warn = warn;
    this.#content = contentOf(file);
    this.#publishers = loadPublishers(file);
  }

  current(): readonly Publisher[] {
    const content = contentOf(this.#file);
    if (content === this.#content) return this.#publishers;
    this.#content = content;
    // Until the new content is read, nobody: an error below leaves no old token in force.
    this.#publishers = [];
    if (content === undefined) {
      this.#warn(
        `${this.#file} is gone: no token is accepted until it is back (registry publisher writes it).`,
      );
      return this.#publishers;
    }
    try {
      // The content just read, not the file again: what is compared is what is parsed.
      this.#publishers = loadPublishers(this.#file, content);
    } catch (error) {
      if (!(error instanceof PublishersFileError) && !(error instanceof KeyFileError)) throw error;
      this.#warn(`${error.message} No token is accepted until the publishers file reads again.`);
    }
    return this.#publishers;
  }
}

/** The file's text, or undefined when there is none to read. */
function contentOf(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * Adds a publisher (or gives an existing one a new token and these keys) and returns its new
 * token, the only time it is ever shown.
 */
export function addPublisher(
  file: string,
  name: string,
  keyPems: readonly string[],
  { operator = false }: { operator?: boolean } = {},
): { token: string; fingerprints: string[] } {
  if (!PUBLISHER_NAME.test(name))
    throw new PublishersFileError(
      `"${name}" is not a publisher name: use lower-case letters, digits and dashes (up to 64).`,
    );
  const fingerprints = keyPems.map((pem, index) =>
    keyFingerprint(publicKeyFromPem(pem, `public key ${index + 1}`)),
  );
  const token = newToken();
  const entries = readEntries(file).filter((entry) => entry.name !== name);
  entries.push({
    name,
    tokenSha256: tokenDigest(token),
    keys: [...keyPems],
    ...(operator ? { operator } : {}),
  });
  // The data directory is made here as `registry serve` makes it: `registry publisher` is the
  // first command of a new registry, run before any serve.
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify({ publishers: entries }, null, 2)}\n`, { mode: 0o600 });
  renameSync(temporary, file);
  return { token, fingerprints };
}

export type Authentication =
  { state: 'ok'; publisher: Publisher } | { state: 'missing' | 'malformed' | 'unknown' };

/** Who an `Authorization: Bearer …` header names; compared by digest in constant time. */
export function authenticate(publishers: readonly Publisher[], header: string | undefined): Authentication {
  if (header === undefined || header === '') return { state: 'missing' };
  const match = /^Bearer (\S+)$/i.exec(header);
  const token = match?.[1];
  if (token === undefined || !TOKEN_PATTERN.test(token)) return { state: 'malformed' };
  const digest = Buffer.from(tokenDigest(token), 'hex');
  const publisher = publishers.find((candidate) =>
    timingSafeEqual(Buffer.from(candidate.tokenSha256, 'hex'), digest),
  );
  return publisher ? { state: 'ok', publisher } : { state: 'unknown' };
}
