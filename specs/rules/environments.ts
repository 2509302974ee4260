// Spec §5 Environments and Key types: production and sandbox keys work only in their environment.
import { defineRule } from '../../conformance/run/rule-declaration.ts';
import { AUTH_REJECTION_CODES } from '../../conformance/judging/spec-errors.ts';

export const ENVIRONMENTS_RULES = [
  defineRule({
    id: 'ENV-SANDBOX-KEY-ON-PRODUCTION-REJECTED',
    level: 'MUST',
    source: 'spec §1; §5 Environments, Key types',
    statement:
      'A development (sandbox) key on the production API is rejected with an authentication error, with no data.',
    needs: ['credentials.sandbox'],
    reads: 'authenticated-path',
    check: async ({ api, check, customersUrl, bearer }) => {
      const exchange = await api.get(customersUrl(), {
        headers: { Authorization: bearer('sandbox') },
        note: 'a development key',
      });
      check.rejected(exchange, 'A development key on the production API', {
        codes: AUTH_REJECTION_CODES,
      });
    },
  }),
  defineRule({
    id: 'ENV-PRODUCTION-KEY-ON-SANDBOX-REJECTED',
    level: 'MUST',
    source: 'spec §1; §5 Environments, Key types',
    statement: 'A production key on the sandbox API is rejected with an authentication error, with no data.',
    needs: ['sandboxBaseUrl', 'credentials.fullAccess'],
    reads: 'authenticated-path',
    check: async ({ api, check, customersUrl, bearer }) => {
      const exchange = await api.get(customersUrl('sandboxBaseUrl'), {
        headers: { Authorization: bearer('fullAccess') },
        note: 'a production key',
      });
      check.rejected(exchange, 'A production key on the sandbox API', {
        codes: AUTH_REJECTION_CODES,
      });
    },
  }),
  defineRule({
    id: 'ENV-SANDBOX-KEY-SERVED',
    level: 'MUST',
    source: 'spec §5 Environments, Key types',
    statement: 'A development key is served on the sandbox API.',
    needs: ['sandboxBaseUrl', 'credentials.sandbox'],
    reads: 'authenticated-path',
    check: async ({ api, check, customersUrl, bearer }) => {
      const exchange = await api.get(customersUrl('sandboxBaseUrl'), {
        headers: { Authorization: bearer('sandbox') },
        note: 'a development key',
      });
      check.served(exchange, 'A development key on the sandbox API');
    },
  }),
];
