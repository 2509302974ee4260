// Before the run: mint the keys a target with `keyMinting` asks for; after it: revoke them.
import { resolve } from 'node:path';
import { mintKeys } from './key-minting.ts';
import { ENV, readTargetFile, resolveCaFile } from './target.ts';

export default async function globalSetup(): Promise<(() => Promise<void>) | undefined> {
  const file = process.env[ENV.targetFile];
  if (!file) return undefined;
  const target = readTargetFile(resolve(file));
  if (!target.keyMinting) return undefined;
  const adminToken = process.env[target.keyMinting.adminToken] ?? '';
  const minted = await mintKeys(target, adminToken, resolveCaFile(resolve(file), target));
  // Set here, in the runner, before the workers start: they inherit it.
  Object.assign(process.env, minted.env);
  return () => minted.revokeAll();
}
