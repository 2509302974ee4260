// The embedded target: the reference server that each worker starts in-process when a run names
// no target file (conformance/run/embedded-in-worker.ts). It is fixtures/reference-target.json, whose keys are the public test keys of
// fixtures/reference.json, served on the free ports the server printed and with the CA it made.
import { join, resolve } from 'node:path';
import { DEFAULT_CERT_DIR } from '../../reference-server/listeners/certificates.ts';
import { PACKAGE_ROOT } from '../../kit/package-root.ts';
import { DEFAULT_FIXTURES_FILE, loadFixtures } from '../../reference-server/store/fixtures.ts';
import { ENV, type Environment } from '../env.ts';
import { declareTarget, type TargetDeclaration } from './target.ts';
import type { Profile } from '../settings.ts';

export const EMBEDDED_TARGET_FILE = resolve(PACKAGE_ROOT, 'fixtures', 'reference-target.json');

/** The embedded target, its keys named by the variables of `fixtureKeyEnvironment`. */
export function declareEmbeddedTarget(env: NodeJS.ProcessEnv, runProfile?: Profile): TargetDeclaration {
  const declared = declareTarget(
    EMBEDDED_TARGET_FILE,
    { ...fixtureKeyEnvironment(), ...env },
    'embedded',
    runProfile,
  );
  return { ...declared, caFile: join(embeddedCertDir(env), 'ca.crt') };
}

/**
 * `REFERENCE_KEY_<ID>` for every key of the reference fixtures (public test values), the names
 * fixtures/reference-target.json uses. `npm run fixture-key -- --export` prints the same.
 */
export function fixtureKeyEnvironment(fixturesFile = DEFAULT_FIXTURES_FILE): Record<string, string> {
  const entries = loadFixtures(fixturesFile).tenants.flatMap((tenant) =>
    tenant.keys.map((key) => [fixtureKeyVariable(key.id), key.secret] as const),
  );
  return Object.fromEntries(entries);
}

export function fixtureKeyVariable(keyId: string): string {
  return `REFERENCE_${keyId.toUpperCase()}`;
}

/**
 * The embedded server's certificate directory: the reference server's default (under the current
 * directory) unless the environment names another; the config hands the result to the server.
 */
export function embeddedCertDir(env: Environment): string {
  return resolve(env[ENV.referenceCertDir] || DEFAULT_CERT_DIR);
}

/**
 * The embedded server's URLs on the free ports it listens on, which the worker that started it
 * has put in its environment (not yet when the config is read).
 */
export function onReferencePorts<T extends Omit<TargetDeclaration, 'credentials'>>(
  target: T,
  env: NodeJS.ProcessEnv,
): T {
  const httpsPort = env[ENV.referenceHttpsPort];
  const httpPort = env[ENV.referenceHttpPort];
  if (!httpsPort || !httpPort) return target;
  const withPort = (url: string | undefined, port: string): string | undefined => {
    if (url === undefined) return undefined;
    const parsed = new URL(url);
    parsed.port = port;
    return parsed.toString().replace(/\/$/, '');
  };
  return {
    ...target,
    baseUrl: withPort(target.baseUrl, httpsPort) ?? target.baseUrl,
    otherTenantBaseUrl: withPort(target.otherTenantBaseUrl, httpsPort),
    sandboxBaseUrl: withPort(target.sandboxBaseUrl, httpsPort),
    plainHttpBaseUrl: withPort(target.plainHttpBaseUrl, httpPort) ?? target.plainHttpBaseUrl,
  };
}
