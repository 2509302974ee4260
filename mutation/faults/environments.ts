// Environments (spec §5 Environments, Key types): the faults that break these rules (see ../fault.ts).
import { KEY_PREFIX_BY_ENVIRONMENT } from '../../reference-server/store/key-format.ts';
import { alsoKeysOf, CORRECT, type Fault } from '../fault.ts';

export const ENVIRONMENTS_FAULTS = {
  'sandbox-key-accepted-on-production': {
    description: 'On the production API a development (sandbox) key of the tenant is accepted too.',
    catches: ['ENV-SANDBOX-KEY-ON-PRODUCTION-REJECTED'],
    alsoFails: {
      'TENANT-CACHED-ANSWER-NOT-SHARED':
        'Its development-key request on the production URL is served the customers (fresh, not cached: the rule judges the data).',
    },
    steps: () => ({ findKey: alsoKeysOf('sandbox', 'production') }),
  },
  'production-key-accepted-on-sandbox': {
    description: 'On the sandbox API a production key of the tenant is accepted too.',
    catches: ['ENV-PRODUCTION-KEY-ON-SANDBOX-REJECTED'],
    steps: () => ({ findKey: alsoKeysOf('production', 'sandbox') }),
  },
  'development-keys-refused': {
    description: `Only keys with the production prefix (${KEY_PREFIX_BY_ENVIRONMENT.production}) are looked up: development keys are refused even on the sandbox.`,
    catches: ['ENV-SANDBOX-KEY-SERVED'],
    steps: () => ({
      findKey: (context, host, token) =>
        token.startsWith(KEY_PREFIX_BY_ENVIRONMENT.production)
          ? CORRECT.findKey(context, host, token)
          : undefined,
    }),
  },
} satisfies Record<string, Fault>;
