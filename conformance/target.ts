// The deployment a run checks: a target file (schemas/target.schema.json) resolved against the
// environment, or — with no target file — the embedded reference server that Playwright's
// webServer starts (fixtures/reference-target.json with the ports it printed).
import { readFileSync } from 'node:fs';
import { parse as parseJsonc, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { dirname, join, resolve } from 'node:path';
import type { TargetFile } from '../schemas/generated/target.ts';
import { describeSchemaErrors, validatorFor } from '../schemas/validators.ts';
import { loadFixtures, DEFAULT_FIXTURES_FILE } from '../reference-server/store/fixtures.ts';
import { PACKAGE_ROOT } from '../reference-server/package-root.ts';
import { DEFAULT_CERT_DIR } from '../reference-server/listeners/tls.ts';
import type { HostMap } from './host-map.ts';
import { mintedVariable, plannedKeys, type CredentialName } from './key-minting.ts';

export type Profile = 'default' | 'strict';
export type { CredentialName };

export interface ResolvedTarget {
  name: string;
  /** `embedded` when the suite started the reference server itself. */
  mode: 'embedded' | 'file';
  file: string;
  baseUrl: string;
  otherTenantBaseUrl?: string;
  sandboxBaseUrl?: string;
  plainHttpBaseUrl: string;
  /** Key values by credential name. Never print them: use the Redactor. */
  credentials: Partial<Record<CredentialName, string>>;
  /** The environment variable each credential came from: what reports show instead of the key. */
  credentialVariables: Partial<Record<CredentialName, string>>;
  caFile?: string;
  profile: Profile;
  hosts: HostMap;
}

export { ENV } from './env.ts';
import { ENV } from './env.ts';

export const EMBEDDED_TARGET_FILE = resolve(PACKAGE_ROOT, 'fixtures', 'reference-target.json');

export class TargetError extends Error {
  constructor(file: string, problems: string[]) {
    super(
      `Invalid target file ${file}:\n  ${problems.join('\n  ')}\nSee schemas/target.schema.json and the README, "Certifying a deployment".`,
    );
    this.name = 'TargetError';
  }
}

/** A target file is JSON; comments and trailing commas (JSONC, as in tsconfig.json) are allowed. */
export function readTargetFile(file: string): TargetFile {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new TargetError(file, [`cannot be read as JSON (${reason})`]);
  }
  const syntaxErrors: ParseError[] = [];
  const data: unknown = parseJsonc(text, syntaxErrors, { allowTrailingComma: true });
  const [syntaxError] = syntaxErrors;
  if (syntaxError !== undefined) {
    const { line, column } = lineAndColumn(text, syntaxError.offset);
    throw new TargetError(file, [
      `cannot be read as JSON (${printParseErrorCode(syntaxError.error)} at line ${line}, column ${column})`,
    ]);
  }
  const validate = validatorFor<TargetFile>('target.schema.json');
  if (!validate(data)) throw new TargetError(file, describeSchemaErrors(validate.errors));
  return data;
}

export function resolveTarget(
  file: string,
  env: NodeJS.ProcessEnv,
  mode: ResolvedTarget['mode'] = 'file',
): ResolvedTarget {
  const target = readTargetFile(file);
  const credentials: ResolvedTarget['credentials'] = {};
  const credentialVariables: ResolvedTarget['credentialVariables'] = {};
  const problems: string[] = [];
  for (const [name, variable] of Object.entries(target.credentials ?? {}) as [CredentialName, string][]) {
    const value = env[variable];
    if (value === undefined || value === '') {
      problems.push(
        `$.credentials.${name}: the environment variable ${variable} is not set. Export it with the key, or remove the entry.`,
      );
    } else {
      credentials[name] = value;
      credentialVariables[name] = variable;
    }
  }
  // Keys minted for this run (conformance/key-minting.ts) appear once global setup has made them.
  for (const planned of plannedKeys(target)) {
    const value = env[mintedVariable(planned.credential)];
    if (value) {
      credentials[planned.credential] = value;
      credentialVariables[planned.credential] = mintedVariable(planned.credential);
    }
  }
  const adminTokenVariable = target.keyMinting?.adminToken;
  if (adminTokenVariable !== undefined && !env[adminTokenVariable]) {
    problems.push(
      `$.keyMinting.adminToken: the environment variable ${adminTokenVariable} is not set. Export the admin token.`,
    );
  }
  const caFile = resolveCaFile(file, target);
  // The embedded server makes its CA when it starts; any other target's must be there now.
  // Whether the CA file exists and holds a certificate is the preflight's first stage
  // (conformance/preflight.ts): a set-up error with its fix, not a schema error.
  const profile: string = env[ENV.profile] ?? target.profile ?? 'default';
  if (profile !== 'default' && profile !== 'strict')
    problems.push(`profile "${profile}": use default or strict.`);
  if (problems.length > 0) throw new TargetError(file, problems);

  const resolved: ResolvedTarget = {
    name: target.name ?? new URL(target.baseUrl).host,
    mode,
    file,
    baseUrl: target.baseUrl,
    otherTenantBaseUrl: target.otherTenantBaseUrl,
    sandboxBaseUrl: target.sandboxBaseUrl,
    plainHttpBaseUrl: target.plainHttpBaseUrl ?? defaultPlainHttpBaseUrl(target.baseUrl),
    credentials,
    credentialVariables,
    caFile,
    profile: profile as Profile,
    hosts: target.hosts ?? {},
  };
  return mode === 'embedded' ? withReferencePorts(resolved, env) : resolved;
}

/** The target's CA file, relative to the target file. */
export function resolveCaFile(file: string, target: TargetFile): string | undefined {
  return target.caFile === undefined ? undefined : resolve(dirname(file), target.caFile);
}

/** The target of this run, as the runner described it in the environment. */
export function targetFromEnvironment(env: NodeJS.ProcessEnv = process.env): ResolvedTarget {
  const file = env[ENV.targetFile];
  return file
    ? resolveTarget(resolve(file), env)
    : resolveTarget(EMBEDDED_TARGET_FILE, { ...fixtureKeyEnvironment(), ...env }, 'embedded');
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

function defaultPlainHttpBaseUrl(baseUrl: string): string {
  const url = new URL(baseUrl);
  return `http://${url.hostname}/v1`;
}

/**
 * The embedded server's certificate directory: the reference server's default (under the current
 * directory) unless the environment names another; the config hands the result to the server.
 */
export function embeddedCertDir(env: NodeJS.ProcessEnv = process.env): string {
  return resolve(env[ENV.referenceCertDir] || DEFAULT_CERT_DIR);
}

/**
 * The embedded server listens on free ports, which webServer captured from its output, and keeps
 * its CA in the certificate directory it was given.
 */
function withReferencePorts(target: ResolvedTarget, env: NodeJS.ProcessEnv): ResolvedTarget {
  target = { ...target, caFile: join(embeddedCertDir(env), 'ca.crt') };
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

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, column: (before.at(-1)?.length ?? 0) + 1 };
}
