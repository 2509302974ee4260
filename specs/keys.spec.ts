// Spec §5 and §7: valid keys are served; unknown, altered and revoked keys get invalid_api_key.
import { alteredKeys, unknownKeyLike } from '../conformance/judging/key-variants.ts';
import { Redactor } from '../conformance/redaction/secrets.ts';
import { conformanceRule } from '../conformance/run/test.ts';

conformanceRule('KEY-VALID-SERVED', async ({ api, check, customersUrl, bearer }) => {
  const exchange = await api.get(customersUrl(), {
    headers: { Authorization: bearer('fullAccess') },
  });
  check.served(exchange, 'A valid Full Access key');
});

conformanceRule('KEY-UNKNOWN-REJECTED', async ({ api, check, customersUrl, target }) => {
  const exchange = await api.get(customersUrl(), {
    headers: { Authorization: `Bearer ${unknownKeyLike(target.credentials.fullAccess)}` },
    note: 'an unknown key',
  });
  check.rejected(exchange, 'An unknown key', {
    codes: ['invalid_api_key'],
  });
});

conformanceRule('KEY-ALTERED-REJECTED', async ({ api, check, customersUrl, credential }) => {
  await check.each(alteredKeys(credential('fullAccess')), async (altered) => {
    const exchange = await api.get(customersUrl(), {
      headers: { Authorization: `Bearer ${altered.key}` },
      note: `the key ${altered.how}`,
    });
    check.rejected(exchange, `A valid key ${altered.how}`, {
      codes: ['invalid_api_key'],
    });
  });
});

conformanceRule('KEY-REVOKED-REJECTED', async ({ api, check, customersUrl, bearer }) => {
  const exchange = await api.get(customersUrl(), {
    headers: { Authorization: bearer('revoked') },
    note: 'a revoked key',
  });
  check.rejected(exchange, 'A revoked key', {
    codes: ['invalid_api_key'],
  });
});

conformanceRule('KEY-INVALID-401', async ({ api, check, customersUrl, target }) => {
  const exchange = await api.get(customersUrl(), {
    headers: { Authorization: `Bearer ${unknownKeyLike(target.credentials.fullAccess)}` },
    note: 'an unknown key',
  });
  check.status(exchange, [401], 'An unknown key');
  check.header(exchange, 'WWW-Authenticate', /^\s*Bearer\b/i, 'An unknown key');
});

conformanceRule('KEY-NOT-ECHOED', async ({ api, check, customersUrl, credential }) => {
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
});
