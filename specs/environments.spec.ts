// Spec §5 Environments and Key types: production and sandbox keys work only in their environment.
import { conformanceRule } from '../conformance/test.ts';

const AUTH_REJECTION_CODES = ['invalid_api_key', 'insufficient_permissions'] as const;

conformanceRule(
  'ENV-SANDBOX-KEY-ON-PRODUCTION-REJECTED',
  async ({ api, check, customersUrl, knowledge, credential }) => {
    const exchange = await api.get(customersUrl(), {
      headers: { Authorization: `Bearer ${credential('sandbox')}` },
      note: 'a development key',
    });
    check.rejected(exchange, 'A development key on the production API', {
      codes: AUTH_REJECTION_CODES,
      noDataOf: [knowledge.own, knowledge.other],
    });
  },
);

conformanceRule(
  'ENV-PRODUCTION-KEY-ON-SANDBOX-REJECTED',
  async ({ api, check, customersUrl, knowledge, credential }) => {
    const exchange = await api.get(customersUrl('sandboxBaseUrl'), {
      headers: { Authorization: `Bearer ${credential('fullAccess')}` },
      note: 'a production key',
    });
    check.rejected(exchange, 'A production key on the sandbox API', {
      codes: AUTH_REJECTION_CODES,
      noDataOf: [knowledge.own, knowledge.other],
    });
  },
);

conformanceRule('ENV-SANDBOX-KEY-SERVED', async ({ api, check, customersUrl, credential }) => {
  const exchange = await api.get(customersUrl('sandboxBaseUrl'), {
    headers: { Authorization: `Bearer ${credential('sandbox')}` },
    note: 'a development key',
  });
  check.served(exchange, 'A development key on the sandbox API');
});
