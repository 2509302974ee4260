// Keys (spec §5, §7): the faults that break these rules (see ../fault.ts).
import { clearKeyLookup, CORRECT, isFullAccess, type Fault } from '../fault.ts';

export const KEYS_FAULTS = {
  'full-access-key-refused': {
    description: 'Full Access keys are refused every operation (their access maps to no permission).',
    catches: ['KEY-VALID-SERVED'],
    alsoFails: {
      'ENV-SANDBOX-KEY-SERVED': 'The sandbox credential is a Full Access key.',
      'AUTH-SCHEME-CASE-INSENSITIVE':
        'It probes `bearer`/`BEARER` with the Full Access key, which is refused.',
    },
    steps: () => ({
      permits: (key, permission) => !isFullAccess(key) && CORRECT.permits(key, permission),
    }),
  },
  'unknown-key-as-anonymous': {
    description:
      'A key that is not found authenticates as an anonymous key without permissions: 403, not 401.',
    catches: ['KEY-UNKNOWN-REJECTED'],
    alsoFails: {
      'KEY-ALTERED-REJECTED': 'An altered key is an unknown key: insufficient_permissions too.',
      'KEY-REVOKED-REJECTED': 'A revoked key is not found either: insufficient_permissions too.',
      'KEY-INVALID-401': 'An unknown key gets 403.',
    },
    steps: () => ({
      findKey: (context, host, token) =>
        CORRECT.findKey(context, host, token) ?? {
          id: 'anonymous',
          tenant: host.tenant,
          environment: host.environment,
          permissions: new Set(),
          revoked: false,
        },
    }),
  },
  'key-compared-by-prefix': {
    description: 'Only the first 16 characters of a key are compared.',
    catches: ['KEY-ALTERED-REJECTED'],
    steps: (fixtures) => ({
      findKey: clearKeyLookup(
        fixtures,
        (presented, secret) => presented.slice(0, 16) === secret.slice(0, 16),
      ),
    }),
  },
  'key-compared-case-insensitively': {
    description: 'Keys are compared without regard to letter case.',
    catches: ['KEY-ALTERED-REJECTED'],
    steps: (fixtures) => ({
      findKey: clearKeyLookup(
        fixtures,
        (presented, secret) => presented.toLowerCase() === secret.toLowerCase(),
      ),
    }),
  },
  'revoked-key-accepted': {
    description: 'A revoked key still authenticates.',
    catches: ['KEY-REVOKED-REJECTED'],
    // Any revoked key of the store, a fixture's or one revoked through the admin API: a run whose
    // keys are minted (keyMinting) presents a key it revoked itself.
    steps: () => ({
      findKey: (context, host, token) => {
        const correct = CORRECT.findKey(context, host, token);
        if (correct) return correct;
        const key = context.data.keys.identify(host.tenant, token);
        return key?.revoked === true && key.environment === host.environment
          ? { ...key, revoked: false }
          : undefined;
      },
    }),
  },
} satisfies Record<string, Fault>;
