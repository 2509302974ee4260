// A target given by URL alone (`run --base-url …`), without a target file: the keys come from
// documented environment variables, one per credential, and every rule whose input is missing is
// reported not evaluated, as with a target file that lacks it.
import { basename } from 'node:path';
import type { TargetFile } from '../../schemas/generated/target.ts';
import type { CredentialName } from './target.ts';

/** The environment variable of each credential, in URL mode and in files written by `init`. */
export const CREDENTIAL_VARIABLES: Record<CredentialName, string> = {
  fullAccess: 'CONFORMANCE_KEY_FULL_ACCESS',
  readOnly: 'CONFORMANCE_KEY_READ_ONLY',
  noCustomersPermission: 'CONFORMANCE_KEY_NO_CUSTOMERS',
  revoked: 'CONFORMANCE_KEY_REVOKED',
  sandbox: 'CONFORMANCE_KEY_SANDBOX',
  otherTenant: 'CONFORMANCE_KEY_OTHER_TENANT',
  probe: 'CONFORMANCE_KEY_PROBE',
};

/**
 * The name of the target file the kit writes for a target given by URL (`run --base-url`, a
 * `{ baseUrl }` target of conformanceProjects): a rule not evaluated then names the option or the
 * variable to give, not a file the user never saw.
 */
export const URL_TARGET_FILE = 'conformance-target-by-url.json';

/** Whether `value` is a base URL a target may have: `https://{host}/v1` (schemas/target.schema.json). */
export function isBaseUrl(value: string): boolean {
  return /^https:\/\/[^/?#@]+\/v1$/.test(value);
}

/** Whether `file` is a target the kit wrote from URL options. */
export function isUrlTargetFile(file: string): boolean {
  return basename(file) === URL_TARGET_FILE;
}

export interface UrlTargetOptions {
  baseUrl: string;
  otherTenantBaseUrl?: string | undefined;
  sandboxBaseUrl?: string | undefined;
  /** Absolute path of a CA to trust besides the system's. */
  caFile?: string | undefined;
}

/**
 * The target file equivalent to the options: the credentials whose variable is set, and for a
 * `*.localhost` host the loopback mapping Node's resolver does not make (RFC 6761 names).
 */
export function urlTarget(options: UrlTargetOptions, env: NodeJS.ProcessEnv): TargetFile {
  const credentials = Object.fromEntries(
    Object.entries(CREDENTIAL_VARIABLES).filter(([, variable]) => (env[variable] ?? '') !== ''),
  );
  const hosts = localhostHosts(options.baseUrl);
  return {
    baseUrl: options.baseUrl,
    ...(options.otherTenantBaseUrl === undefined ? {} : { otherTenantBaseUrl: options.otherTenantBaseUrl }),
    ...(options.sandboxBaseUrl === undefined ? {} : { sandboxBaseUrl: options.sandboxBaseUrl }),
    ...(Object.keys(credentials).length === 0 ? {} : { credentials }),
    ...(options.caFile === undefined ? {} : { caFile: options.caFile }),
    ...(hosts === undefined ? {} : { hosts }),
  };
}

/**
 * The host map a `*.localhost` URL needs (loopback, which Node's resolver does not give those
 * names), or undefined: `run --base-url` and `init` write the same one.
 */
export function localhostHosts(url: string): { '*.localhost': '127.0.0.1' } | undefined {
  try {
    return new URL(url).hostname.endsWith('.localhost') ? { '*.localhost': '127.0.0.1' } : undefined;
  } catch {
    return undefined;
  }
}
