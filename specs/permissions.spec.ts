// Spec §5 Authentication versus authorization: a valid key is not enough; the operation must be
// allowed for that key.
import { conformanceRule } from '../conformance/run/test.ts';

conformanceRule('PERM-INSUFFICIENT-REJECTED', async ({ api, check, customersUrl, bearer }) => {
  const exchange = await api.get(customersUrl(), {
    headers: { Authorization: bearer('noCustomersPermission') },
    note: 'a key without the customers permission',
  });
  check.rejected(exchange, 'A key without the customers permission', {
    codes: ['insufficient_permissions'],
  });
});

conformanceRule('PERM-INSUFFICIENT-403', async ({ api, check, customersUrl, bearer }) => {
  const exchange = await api.get(customersUrl(), {
    headers: { Authorization: bearer('noCustomersPermission') },
    note: 'a key without the customers permission',
  });
  check.status(exchange, [403], 'A key without the customers permission');
});

conformanceRule('PERM-READ-ONLY-READS', async ({ api, check, customersUrl, bearer }) => {
  const exchange = await api.get(customersUrl(), {
    headers: { Authorization: bearer('readOnly') },
    note: 'a Read Only key',
  });
  check.served(exchange, 'A Read Only key');
});
