// The error codes of spec §7, as the rules name them.

/** Every authentication error code the spec defines. */
export const SPEC_ERROR_CODES = [
  'missing_authorization_header',
  'invalid_api_key',
  'insufficient_permissions',
] as const;

/** A valid key used where it may not be: either code is a rejection (docs/decisions.md). */
export const AUTH_REJECTION_CODES = ['invalid_api_key', 'insufficient_permissions'] as const;
