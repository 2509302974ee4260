// Spec §5 and §7: valid keys are served; unknown, altered and revoked keys get invalid_api_key.
import { defineRule } from '../../conformance/run/rule-declaration.ts';
import { alteredKeys, unknownKeyLike } from '../../conformance/judging/key-variants.ts';
import { Redactor } from '../../conformance/redaction/secrets.ts';
import type { RuleContext } from '../../conformance/run/rule-context.ts';
import type { Exchange } from '../../conformance/requests/exchange.ts';

/** GET {base_url}/customers with a key shaped like the Full Access key that no tenant has. */
function withUnknownKey({ api, customersUrl, target }: RuleContext): Promise<Exchange> {
  return api.get(customersUrl(), {
    headers: { Authorization: `Bearer ${unknownKeyLike(target.credentials.fullAccess)}` },
    note: 'an unknown key',
  });
}

export const KEYS_RULES = [
  defineRule({
    id: 'KEY-VALID-SERVED',
    level: 'MUST',
    source: 'spec §1; §4 GET /customers',
    statement:
      "A valid Full Access key is served the tenant's customers as JSON at GET {base_url}/customers.",
    needs: ['credentials.fullAccess'],
    reads: 'authenticated-path',
    check: async ({ api, check, customersUrl, bearer }) => {
      const exchange = await api.get(customersUrl(), {
        headers: { Authorization: bearer('fullAccess') },
      });
      check.served(exchange, 'A valid Full Access key');
    },
  }),
  defineRule({
    id: 'KEY-UNKNOWN-REJECTED',
    level: 'MUST',
    source: 'spec §7 Authentication errors',
    statement: 'An unknown key is rejected with invalid_api_key.',
    needs: [],
    reads: 'authenticated-path',
    check: async (context) => {
      const { check } = context;
      const exchange = await withUnknownKey(context);
      check.rejected(exchange, 'An unknown key', {
        codes: ['invalid_api_key'],
      });
    },
  }),
  defineRule({
    id: 'KEY-ALTERED-REJECTED',
    level: 'MUST',
    source: 'spec §7 Authentication errors',
    statement:
      'A valid key truncated, extended, with one character changed or in another letter case is rejected with invalid_api_key.',
    needs: ['credentials.fullAccess'],
    reads: 'authenticated-path',
    check: async ({ api, check, customersUrl, credential }) => {
      await check.each(alteredKeys(credential('fullAccess')), async (altered) => {
        const exchange = await api.get(customersUrl(), {
          headers: { Authorization: `Bearer ${altered.key}` },
          note: `the key ${altered.how}`,
        });
        check.rejected(exchange, `A valid key ${altered.how}`, {
          codes: ['invalid_api_key'],
        });
      });
    },
  }),
  defineRule({
    id: 'KEY-REVOKED-REJECTED',
    level: 'MUST',
    source: 'spec §5 Handling rules; §7',
    statement: 'A revoked key is rejected with invalid_api_key.',
    needs: ['credentials.revoked'],
    reads: 'authenticated-path',
    check: async ({ api, check, customersUrl, bearer }) => {
      const exchange = await api.get(customersUrl(), {
        headers: { Authorization: bearer('revoked') },
        note: 'a revoked key',
      });
      check.rejected(exchange, 'A revoked key', {
        codes: ['invalid_api_key'],
      });
    },
  }),
  defineRule({
    id: 'KEY-INVALID-401',
    level: 'HTTP',
    source: 'RFC 6750 §3.1',
    statement: 'An invalid key is answered 401 with a WWW-Authenticate: Bearer challenge.',
    needs: [],
    reads: 'authenticated-path',
    check: async (context) => {
      const { check } = context;
      const exchange = await withUnknownKey(context);
      check.status(exchange, [401], 'An unknown key');
      check.header(exchange, 'WWW-Authenticate', /^\s*Bearer\b/i, 'An unknown key');
    },
  }),
  defineRule({
    id: 'KEY-NOT-ECHOED',
    level: 'ADVISORY',
    source: 'OWASP ASVS 5.0, security logging and error handling',
    statement: 'No error response repeats the key that was presented.',
    needs: ['credentials.fullAccess'],
    reads: 'any-answer',
    check: async ({ api, check, customersUrl, credential }) => {
      const key = credential('fullAccess');
      const [altered] = alteredKeys(key);
      const rejectedForms = {
        'in quotes': `Bearer "${key}"`,
        'with the Token scheme': `Token ${key}`,
        [altered?.how ?? 'altered']: `Bearer ${altered?.key ?? key}`,
      };
      await check.each(Object.entries(rejectedForms), async ([how, value]) => {
        const exchange = await api.get(customersUrl(), {
          headers: { Authorization: value },
          note: `the key ${how}`,
        });
        const response = check.response(exchange, `The key ${how}`);
        // What was sent, as a Redactor: anything it would mask in the answer is an echo of the key.
        const sent = new Redactor([key, value]);
        const answer = `${JSON.stringify(response.headers)}\n${response.bodyText}`;
        if (sent.redact(answer) !== answer)
          check.fail(`The answer to the key ${how} repeats the key. ${check.describe(response)}`, response);
      });
    },
  }),
];
