// A target file (schemas/target.schema.json): read and checked into a TargetDeclaration,
// which names its keys by environment variable, then bound to the keys themselves. Which target a
// run checks, the embedded one included, is run-target.ts's.
import { readFileSync } from 'node:fs';
import { parse as parseJsonc, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { dirname, resolve } from 'node:path';
import type { TargetFile } from '../../schemas/generated/target.ts';
import { describeSchemaErrors, validatorFor } from '../../schemas/validators.ts';
import type { Profile } from '../settings.ts';
import type { HostMap } from '../requests/host-map.ts';
import { mintedVariable, plannedKeys, type CredentialName } from './key-minting.ts';

export type { Profile };
export type { CredentialName };

/**
 * A target as its file declares it, read and checked by the config (and handed to the suite as
 * a Playwright option): every URL, and for each credential the environment variable that holds
 * it. It holds no key, so it can travel anywhere a config goes.
 */
export interface TargetDeclaration {
  name: string;
  /** `embedded` when the suite started the reference server itself. */
  mode: 'embedded' | 'file';
  file: string;
  baseUrl: string;
  otherTenantBaseUrl?: string;
  sandboxBaseUrl?: string;
  plainHttpBaseUrl: string;
  /** The environment variable each declared credential is read from: what reports show instead of the key. */
  credentialVariables: Partial<Record<CredentialName, string>>;
  caFile?: string;
  profile: Profile;
  hosts: HostMap;
  /** Keys to mint for the run, and how (conformance/deployment/key-minting.ts). */
  keyMinting?: TargetFile['keyMinting'];
  /**
   * Declared with `keysLater` while a variable the file names is not set: what the set-up project
   * says when a conformance project runs (a team's own projects run without the secrets).
   */
  keysMissing?: string;
  /** Never: a declaration holds no key, so a bound target (with keys) is not one. */
  credentials?: never;
}

/** A declaration with its keys read from the environment (run-target.ts binds them). */
export interface ResolvedTarget extends Omit<TargetDeclaration, 'credentials'> {
  /** Key values by credential name. Never print them: use the KeyNamer. */
  credentials: Partial<Record<CredentialName, string>>;
}

export class TargetError extends Error {
  constructor(file: string, problems: string[]) {
    super(
      `Invalid target file ${file}:\n  ${problems.join('\n  ')}\nSee schemas/target.schema.json and docs/running-the-suite.md.`,
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

/**
 * Reads and checks `file`: its schema, that every credential's variable is set in `env` (a
 * missing key is a usage error, not a failed rule) and the profile: `runProfile`, the run's own
 * (--profile), wins over the file's. Keys are not read here.
 */
export function declareTarget(
  file: string,
  env: NodeJS.ProcessEnv,
  mode: TargetDeclaration['mode'] = 'file',
  runProfile?: Profile,
  { keysLater = false }: { keysLater?: boolean } = {},
): TargetDeclaration {
  const target = readTargetFile(file);
  const credentialVariables: TargetDeclaration['credentialVariables'] = {};
  // The variables not set (the secrets), apart from what is wrong with the file itself.
  const missing: string[] = [];
  const problems: string[] = [];
  for (const [name, variable] of Object.entries(target.credentials ?? {}) as [CredentialName, string][]) {
    if (env[variable] === undefined || env[variable] === '') {
      missing.push(
        `$.credentials.${name}: the environment variable ${variable} is not set. Export it with the key, or remove the entry.`,
      );
    } else {
      credentialVariables[name] = variable;
    }
  }
  const adminTokenVariable = target.keyMinting?.adminToken;
  if (adminTokenVariable !== undefined && !env[adminTokenVariable]) {
    missing.push(
      `$.keyMinting.adminToken: the environment variable ${adminTokenVariable} is not set. Export the admin token.`,
    );
  }
  // Whether the CA file exists and holds a certificate is the preflight's first stage
  // (conformance/deployment/preflight.ts): a set-up error with its fix, not a schema error.
  // A profile given for the run (--profile) wins over the file's own.
  const profile: string = runProfile ?? target.profile ?? 'default';
  if (profile !== 'default' && profile !== 'strict')
    problems.push(`profile "${profile}": use default or strict.`);
  if (problems.length > 0 || (missing.length > 0 && !keysLater))
    throw new TargetError(file, [...missing, ...problems]);

  return {
    name: target.name ?? new URL(target.baseUrl).host,
    mode,
    file,
    baseUrl: target.baseUrl,
    otherTenantBaseUrl: target.otherTenantBaseUrl,
    sandboxBaseUrl: target.sandboxBaseUrl,
    plainHttpBaseUrl: target.plainHttpBaseUrl ?? defaultPlainHttpBaseUrl(target.baseUrl),
    credentialVariables,
    caFile: resolveCaFile(file, target),
    profile: profile as Profile,
    hosts: target.hosts ?? {},
    ...(target.keyMinting ? { keyMinting: target.keyMinting } : {}),
    ...(missing.length > 0 ? { keysMissing: new TargetError(file, missing).message } : {}),
  };
}

/**
 * The declaration with its keys read from `env`: each declared credential's, and the keys global
 * set-up minted for the run (they appear in the environment once it has made them).
 */
export function withCredentials(declared: TargetDeclaration, env: NodeJS.ProcessEnv): ResolvedTarget {
  const credentials: ResolvedTarget['credentials'] = {};
  const credentialVariables = { ...declared.credentialVariables };
  const unset: string[] = [];
  for (const [name, variable] of Object.entries(declared.credentialVariables) as [CredentialName, string][]) {
    const value = env[variable];
    if (value) credentials[name] = value;
    else unset.push(`$.credentials.${name}: the environment variable ${variable} is not set.`);
  }
  // Declared where it was set, so unset here only in a process that lost it: never a silent gap.
  if (unset.length > 0) throw new TargetError(declared.file, unset);
  for (const planned of plannedKeys(declared)) {
    const value = env[mintedVariable(planned.credential)];
    if (value) {
      credentials[planned.credential] = value;
      credentialVariables[planned.credential] = mintedVariable(planned.credential);
    }
  }
  return { ...declared, credentials, credentialVariables };
}

/** The target's CA file, relative to the target file. */
export function resolveCaFile(file: string, target: TargetFile): string | undefined {
  return target.caFile === undefined ? undefined : resolve(dirname(file), target.caFile);
}

function defaultPlainHttpBaseUrl(baseUrl: string): string {
  const url = new URL(baseUrl);
  return `http://${url.hostname}/v1`;
}

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, column: (before.at(-1)?.length ?? 0) + 1 };
}

/** A target file checked and bound to the keys of `env` in one step, for a caller holding the file. */
export function resolveTarget(file: string, env: NodeJS.ProcessEnv, runProfile?: Profile): ResolvedTarget {
  return withCredentials(declareTarget(file, env, 'file', runProfile), env);
}
