// The run's options for its certificate: --bundle, --no-bundle and --sign-key FILE, kept apart
// from the other options of the run so that each set can change on its own. They reach the
// reporter (which writes bundle/) through the environment, like every other setting, and are
// read back with the others (conformance/settings.ts).
import type { KeyObject } from 'node:crypto';
import type { ParseArgsConfig } from 'node:util';
import { ATTESTATION_ENV } from '../env.ts';
import { KeyFileError, loadPrivateKey } from '../attestation/signing-key.ts';
import { readRunSettings, UsageError, type Profile } from '../settings.ts';

export const ATTESTATION_OPTIONS = {
  bundle: { type: 'boolean' },
  'no-bundle': { type: 'boolean' },
  'sign-key': { type: 'string' },
} as const satisfies ParseArgsConfig['options'];

export const ATTESTATION_OPTIONS_HELP = `  --bundle           also write DIR/bundle/: the reports, SHA256SUMS, an in-toto statement of
                     the verdict and badge.svg (default under --profile strict); env
                     ${ATTESTATION_ENV.bundle}=1
  --no-bundle        no bundle, even under --profile strict; env ${ATTESTATION_ENV.bundle}=0
  --sign-key FILE    sign the bundle's statement (DSSE) with this Ed25519 private key (PEM, from
                     \`keygen\`); implies --bundle; env ${ATTESTATION_ENV.signKey}`;

export interface AttestationValues {
  bundle: boolean;
  noBundle: boolean;
  signKey?: string;
}

export function attestationValues(values: Record<string, unknown>): AttestationValues {
  const signKey = values['sign-key'];
  return {
    bundle: values.bundle === true,
    noBundle: values['no-bundle'] === true,
    ...(typeof signKey === 'string' ? { signKey } : {}),
  };
}

/**
 * Sets the run's environment from the options; returns what is wrong with them, or with any
 * setting of the run's environment (exit 2), checked before anything runs — a key that cannot be
 * read must not cost a whole run.
 */
export function applyAttestationOptions(
  values: AttestationValues,
  env: NodeJS.ProcessEnv,
  resolvePath: (path: string) => string,
): string | undefined {
  if (values.noBundle && (values.bundle || values.signKey !== undefined))
    return '--no-bundle cannot be given with --bundle or --sign-key.';
  if (values.bundle) env[ATTESTATION_ENV.bundle] = '1';
  if (values.noBundle) env[ATTESTATION_ENV.bundle] = '0';
  if (values.signKey !== undefined) env[ATTESTATION_ENV.signKey] = resolvePath(values.signKey);
  let settings;
  try {
    settings = readRunSettings(env);
  } catch (error) {
    if (error instanceof UsageError) return error.message;
    throw error;
  }
  const { signKeyFile: keyFile, bundle } = settings;
  if (keyFile) {
    if (bundle === false)
      return `--no-bundle (${ATTESTATION_ENV.bundle}=0) cannot be given with a signing key.`;
    try {
      loadPrivateKey(keyFile);
    } catch (error) {
      if (error instanceof KeyFileError) return `--sign-key: ${error.message}`;
      throw error;
    }
  }
  return undefined;
}

/** Whether the reporter writes bundle/, and the key it signs with. */
export function bundleSettings(
  profile: Profile,
  env: NodeJS.ProcessEnv = process.env,
): { wanted: boolean; signingKey?: KeyObject } {
  const { signKeyFile: keyFile, bundle } = readRunSettings(env);
  const wanted = !!keyFile || (bundle ?? profile === 'strict');
  return { wanted, ...(keyFile ? { signingKey: loadPrivateKey(keyFile) } : {}) };
}
