// Spec §5 Authentication versus authorization: a valid key is not enough; the operation must be
// allowed for that key.
import { conformanceRule } from '../conformance/test.ts';

conformanceRule('PERM-INSUFFICIENT-REJECTED', async ({ api, check, customersUrl, knowledge, credential }) => {
  const exchange = await api.get(customersUrl(), {
    headers: { Authorization: `Bearer ${credential('noCustomersPermission')}` },
    note: 'a key without the customers permission',
  });
  check.rejected(exchange, 'A key without the customers permission', {
    codes: ['insufficient_permissions'],
    noDataOf: [knowledge.own, knowledge.other],
  });
});

conformanceRule('PERM-INSUFFICIENT-403', async ({ api, check, customersUrl, credential }) => {
  const exchange = await api.get(customersUrl(), {
    headers: { Authorization: `Bearer ${credential('noCustomersPermission')}` },
    note: 'a key without the customers permission',
  });
  check.status(exchange, [403], 'A key without the customers permission');
});

conformanceRule('PERM-READ-ONLY-READS', async ({ api, check, customersUrl, credential }) => {
  const exchange = await api.get(customersUrl(), {
    headers: { Authorization: `Bearer ${credential('readOnly')}` },
    note: 'a Read Only key',
  });
  check.served(exchange, 'A Read Only key');
});
