// The error codes of spec §7, as the rules name them.

/** A valid key used where it may not be: either code is a rejection (docs/decisions.md). */
export const AUTH_REJECTION_CODES = ['invalid_api_key', 'insufficient_permissions'] as const;
