// Spec §5 Environments and Key types: production and sandbox keys work only in their environment.
import { conformanceRule } from '../conformance/run/test.ts';
import { AUTH_REJECTION_CODES } from '../conformance/judging/spec-errors.ts';

conformanceRule('ENV-SANDBOX-KEY-ON-PRODUCTION-REJECTED', async ({ api, check, customersUrl, bearer }) => {
  const exchange = await api.get(customersUrl(), {
    headers: { Authorization: bearer('sandbox') },
    note: 'a development key',
  });
  check.rejected(exchange, 'A development key on the production API', {
    codes: AUTH_REJECTION_CODES,
  });
});

conformanceRule('ENV-PRODUCTION-KEY-ON-SANDBOX-REJECTED', async ({ api, check, customersUrl, bearer }) => {
  const exchange = await api.get(customersUrl('sandboxBaseUrl'), {
    headers: { Authorization: bearer('fullAccess') },
    note: 'a production key',
  });
  check.rejected(exchange, 'A production key on the sandbox API', {
    codes: AUTH_REJECTION_CODES,
  });
});

conformanceRule('ENV-SANDBOX-KEY-SERVED', async ({ api, check, customersUrl, bearer }) => {
  const exchange = await api.get(customersUrl('sandboxBaseUrl'), {
    headers: { Authorization: bearer('sandbox') },
    note: 'a development key',
  });
  check.served(exchange, 'A development key on the sandbox API');
});
