// Keeps the key store across restarts: `keys.json` (HMACs and metadata, never a key) and
// `hmac-secret` (the HMAC key, without which the stored HMACs match nothing) in the data directory.
// A created, revoked or rotated key is on disk before its answer is sent (the admin API and the
// panel wait for `KeyStore.saved`); last-use times are only held in memory per request and written
// every `usageFlushMs` and at close, so the API pipeline never waits for a disk. Writes run off the
// event loop and are coalesced (coalescing-writer.ts): a burst of changes costs a few writes.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { KeyStoreFile } from '../../schemas/generated/key-store.ts';
import { describeSchemaErrors } from '../../schemas/schema-errors.ts';
import { validateKeyStore } from '../../schemas/start-up-validators.ts';
import { KeyStore } from './api-keys.ts';
import { CoalescingWriter } from './coalescing-writer.ts';
import {
  codeOf,
  DataDirError,
  ensureDataDir,
  readIfPresent,
  readOrCreateSecretFile,
  writeFileAtomically,
  writeFileAtomicallyAsync,
} from './data-dir.ts';

export const KEYS_FILE = 'keys.json';
export const HMAC_SECRET_FILE = 'hmac-secret';
export const DEFAULT_USAGE_FLUSH_MS = 30_000;
const FORMAT = 'reference-key-store/1';
const HMAC_SECRET_BYTES = 32;

export interface PersistedKeys {
  store: KeyStore;
  /** Writes the store now, then after every change, and last-use times every `usageFlushMs`. */
  startSaving(): void;
  /** Stops the timer, writes pending last-use times, and resolves when every write is done. */
  close(): Promise<void>;
}

export interface PersistOptions {
  usageFlushMs?: number;
  /** Where a failed periodic write is reported (it is retried at the next tick). */
  warn?: (message: string) => void;
}

export function openKeyStoreFile(dataDir: string, options: PersistOptions = {}): PersistedKeys {
  ensureDataDir(dataDir);
  const keysPath = join(dataDir, KEYS_FILE);
  const storedText = readIfPresent(keysPath);
  const secretPath = join(dataDir, HMAC_SECRET_FILE);
  if (storedText !== undefined && readIfPresent(secretPath) === undefined) {
    throw new DataDirError(
      `${keysPath} exists but ${secretPath} does not: the stored keys cannot be checked without it. ` +
        `Restore ${HMAC_SECRET_FILE}, or delete ${keysPath} to start again from the fixtures.`,
    );
  }
  const store = new KeyStore(readHmacSecret(dataDir, secretPath));
  if (storedText !== undefined) store.load(parseKeysFile(keysPath, storedText).keys);

  const content = (): string => {
    const file: KeyStoreFile = { format: FORMAT, keys: store.records() };
    return `${JSON.stringify(file, null, 2)}\n`;
  };
  // The content is read when the write begins: it holds every change made until then.
  const writer = new CoalescingWriter(() => writeFileAtomicallyAsync(keysPath, content()));
  const warn = options.warn ?? ((message: string) => console.error(message));
  const flushMs = options.usageFlushMs ?? DEFAULT_USAGE_FLUSH_MS;
  let usageDirty = false;
  let timer: NodeJS.Timeout | undefined;
  const flushUsage = async (): Promise<void> => {
    if (!usageDirty) return;
    usageDirty = false;
    try {
      await writer.request();
    } catch (error) {
      usageDirty = true;
      warn(`Could not write ${keysPath} (${codeOf(error)}); last-use times stay in memory and are retried.`);
    }
  };

  return {
    store,
    startSaving: () => {
      // At start, before anything is served: a directory that cannot be written fails the start.
      writeFileAtomically(keysPath, content());
      store.onChange((change) => {
        if (change === 'usage') {
          usageDirty = true;
          return undefined;
        }
        // A key change (above all a revocation) is on disk before the change is answered.
        return writer.request();
      });
      timer = setInterval(() => void flushUsage(), flushMs);
      // The timer alone never keeps the process alive.
      timer.unref();
    },
    close: async () => {
      clearInterval(timer);
      await flushUsage();
      await writer.idle();
    },
  };
}

function readHmacSecret(dataDir: string, secretPath: string): Buffer {
  const text = readOrCreateSecretFile(dataDir, HMAC_SECRET_FILE, () =>
    randomBytes(HMAC_SECRET_BYTES).toString('base64'),
  );
  const secret = Buffer.from(text, 'base64');
  if (secret.length !== HMAC_SECRET_BYTES) {
    throw new DataDirError(
      `${secretPath} does not hold a ${HMAC_SECRET_BYTES}-byte base64 secret. ` +
        `Restore it, or delete it and ${KEYS_FILE} to start again from the fixtures.`,
    );
  }
  return secret;
}

function parseKeysFile(path: string, text: string): KeyStoreFile {
  const advice = `Fix it, or delete it to start again from the fixtures.`;
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new DataDirError(`${path} is not valid JSON (${(error as Error).message}). ${advice}`);
  }
  if (!validateKeyStore(data)) {
    throw new DataDirError(
      `${path} is not a key store:\n  ${describeSchemaErrors(validateKeyStore.errors).join('\n  ')}\n${advice}`,
    );
  }
  return data;
}
