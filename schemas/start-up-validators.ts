// The validators the server runs before it can answer, generated ahead of time from the same
// schemas and ajv options as validators.ts (scripts/start-up-validators-source.ts): loading them
// loads none of ajv's compiler. `npm run generate` rewrites them, and the static checks fail when
// they differ from the schemas.
import type { ValidateFunction } from 'ajv';
import type { Fixtures } from './generated/fixtures.ts';
import type { KeyStoreFile } from './generated/key-store.ts';
import * as generated from './generated/start-up-validators.ts';

export const validateFixtures = generated.fixtures as unknown as ValidateFunction<Fixtures>;
export const validateKeyStore = generated.keyStore as unknown as ValidateFunction<KeyStoreFile>;
