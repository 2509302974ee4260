// `verifyBundle` of the package's entry point: the verification code (schemas, the report's
// verdict, DSSE) is loaded when a bundle is first verified, not by every test file that imports
// the package for its mock.
import type { Verification, VerifyOptions } from '../conformance/attestation/verify-bundle.ts';

/**
 * Checks a run's bundle as the `verify` command does: digests, consistency, signer. Its
 * `signature.state` is `trusted` only for a key in `options.trustedKeys`. Throws BundleInputError
 * when the directory is not a bundle.
 */
export async function verifyBundle(directory: string, options: VerifyOptions = {}): Promise<Verification> {
  const verification = await import('../conformance/attestation/verify-bundle.ts');
  return verification.verifyBundle(directory, options);
}
