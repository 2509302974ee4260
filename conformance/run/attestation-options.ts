// The run's options for its certificate: --bundle, --no-bundle and --sign-key FILE (rows of
// run-option-table.ts, under their own heading of --help), and what they cannot be given with.
// They reach the reporter (which writes bundle/) in the run's settings, like every other option.
import type { KeyObject } from 'node:crypto';
import { ATTESTATION_ENV } from '../env.ts';
import { KeyFileError, loadPrivateKey } from '../attestation/signing-key.ts';
import type { Profile, RunSettings } from '../settings.ts';
import { flaggedRows, flagOptions, type FlagOptions } from './option-flags.ts';
import { optionHelp } from './option-help.ts';

/** The rows of the certificate's options. */
export const ATTESTATION_ROWS = flaggedRows('certificate');

export const ATTESTATION_OPTIONS: FlagOptions = flagOptions(ATTESTATION_ROWS);

export const ATTESTATION_OPTIONS_HELP = optionHelp('certificate');

/** The certificate's flags as given: --no-bundle says no to what the other two ask. */
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

/** What is wrong with the certificate's flags together, before anything else is read (exit 2). */
export function attestationFlagsProblem(values: AttestationValues): string | undefined {
  if (values.noBundle && (values.bundle || values.signKey !== undefined))
    return '--no-bundle cannot be given with --bundle or --sign-key.';
  return undefined;
}

/**
 * What is wrong with the resolved settings' certificate (exit 2), checked before anything runs —
 * a key that cannot be read must not cost a whole run.
 */
export function attestationSettingsProblem(settings: Readonly<RunSettings>): string | undefined {
  const { signKeyFile: keyFile, bundle } = settings;
  if (!keyFile) return undefined;
  if (bundle === false)
    return `--no-bundle (${ATTESTATION_ENV.bundle}=0) cannot be given with a signing key.`;
  try {
    loadPrivateKey(keyFile);
  } catch (error) {
    if (error instanceof KeyFileError) return `--sign-key: ${error.message}`;
    throw error;
  }
  return undefined;
}

/** Whether the reporter writes bundle/, and the key it signs with. */
export function bundleSettings(
  profile: Profile,
  settings: Pick<RunSettings, 'signKeyFile' | 'bundle'>,
): { wanted: boolean; signingKey?: KeyObject } {
  const { signKeyFile: keyFile, bundle } = settings;
  const wanted = !!keyFile || (bundle ?? profile === 'strict');
  return { wanted, ...(keyFile ? { signingKey: loadPrivateKey(keyFile) } : {}) };
}
