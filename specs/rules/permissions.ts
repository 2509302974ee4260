// Spec §5 Authentication versus authorization: a valid key is not enough; the operation must be
// allowed for that key.
import { defineRule } from '../../conformance/run/rule-declaration.ts';
import type { RuleContext } from '../../conformance/run/rule-context.ts';
import type { Exchange } from '../../conformance/requests/exchange.ts';

/** GET {base_url}/customers with the key that lacks the customers permission. */
function withoutPermission({ api, customersUrl, bearer }: RuleContext): Promise<Exchange> {
  return api.get(customersUrl(), {
    headers: { Authorization: bearer('noCustomersPermission') },
    note: 'a key without the customers permission',
  });
}

export const PERMISSIONS_RULES = [
  defineRule({
    id: 'PERM-INSUFFICIENT-REJECTED',
    level: 'MUST',
    source: 'spec §5 Authentication versus authorization; §7',
    statement:
      'A valid key without the permission for the operation is rejected with insufficient_permissions, with no data.',
    needs: ['credentials.noCustomersPermission'],
    reads: 'authenticated-path',
    check: async (context) => {
      const { check } = context;
      const exchange = await withoutPermission(context);
      check.rejected(exchange, 'A key without the customers permission', {
        codes: ['insufficient_permissions'],
      });
    },
  }),
  defineRule({
    id: 'PERM-INSUFFICIENT-403',
    level: 'HTTP',
    source: 'RFC 9110 §15.5.4; RFC 6750 §3.1',
    statement: 'insufficient_permissions is answered 403.',
    needs: ['credentials.noCustomersPermission'],
    reads: 'authenticated-path',
    check: async (context) => {
      const { check } = context;
      const exchange = await withoutPermission(context);
      check.status(exchange, [403], 'A key without the customers permission');
    },
  }),
  defineRule({
    id: 'PERM-READ-ONLY-READS',
    level: 'MUST',
    source: 'spec §5 Key types',
    statement: 'A Read Only key can read customers.',
    needs: ['credentials.readOnly'],
    reads: 'authenticated-path',
    check: async ({ api, check, customersUrl, bearer }) => {
      const exchange = await api.get(customersUrl(), {
        headers: { Authorization: bearer('readOnly') },
        note: 'a Read Only key',
      });
      check.served(exchange, 'A Read Only key');
    },
  }),
];
