// Spec §5 Scheme: `Authorization: Bearer <API_KEY>`, no quotes, no credentials in URLs; §7 codes.
import { conformanceRule, notApplicable } from '../conformance/run/test.ts';
import { cookieField, cookiesSetBy } from '../conformance/judging/set-cookie.ts';
import { requireOwnValues } from './tenant-data.ts';

const AUTH_CODES = ['missing_authorization_header', 'invalid_api_key'] as const;

conformanceRule('AUTH-MISSING-HEADER', async ({ api, check, customersUrl }) => {
  const exchange = await api.get(customersUrl());
  check.rejected(exchange, 'A request without Authorization', {
    codes: ['missing_authorization_header'],
  });
});

conformanceRule('AUTH-MISSING-HEADER-401', async ({ api, check, customersUrl }) => {
  const exchange = await api.get(customersUrl());
  check.status(exchange, [401], 'A request without Authorization');
  check.header(exchange, 'WWW-Authenticate', /^\s*Bearer\b/i, 'A request without Authorization');
});

conformanceRule('AUTH-OTHER-SCHEME-REJECTED', async ({ api, check, customersUrl, credential }) => {
  const key = credential('fullAccess');
  const variants = {
    Basic: `Basic ${Buffer.from(`${key}:`).toString('base64')}`,
    Token: `Token ${key}`,
    'no scheme': key,
  };
  await check.each(Object.entries(variants), async ([how, value]) => {
    const exchange = await api.get(customersUrl(), {
      headers: { Authorization: value },
      note: `the key with ${how}`,
    });
    check.rejected(exchange, `A valid key with ${how}`, {
      codes: AUTH_CODES,
    });
  });
});

conformanceRule('AUTH-SCHEME-CASE-INSENSITIVE', async ({ api, check, customersUrl, credential }) => {
  await check.each(['bearer', 'BEARER'], async (scheme) => {
    const exchange = await api.get(customersUrl(), {
      headers: { Authorization: `${scheme} ${credential('fullAccess')}` },
      note: `scheme written "${scheme}"`,
    });
    check.served(exchange, `A valid key with the scheme written "${scheme}"`);
  });
});

conformanceRule('AUTH-QUOTED-KEY-REJECTED', async ({ api, check, customersUrl, credential }) => {
  await check.each(['"', "'"], async (quote) => {
    const exchange = await api.get(customersUrl(), {
      headers: { Authorization: `Bearer ${quote}${credential('fullAccess')}${quote}` },
      note: `the key in ${quote === '"' ? 'double' : 'single'} quotes`,
    });
    check.rejected(exchange, `A valid key in ${quote === '"' ? 'double' : 'single'} quotes`, {
      codes: ['invalid_api_key'],
    });
  });
});

// What the spec forbids: a Bearer header that does not carry the key (none, or the key cut in two).
conformanceRule('AUTH-MALFORMED-BEARER-REJECTED', async ({ api, check, customersUrl, credential }) => {
  const key = credential('fullAccess');
  const middle = Math.floor(key.length / 2);
  const variants = {
    'an empty token': 'Bearer',
    'a space inside the key': `Bearer ${key.slice(0, middle)} ${key.slice(middle)}`,
  };
  await check.each(Object.entries(variants), async ([how, value]) => {
    const exchange = await api.get(customersUrl(), {
      headers: { Authorization: value },
      note: `Bearer with ${how}`,
    });
    check.rejected(exchange, `Bearer with ${how}`);
  });
});

// What RFC 6750 §2.1's syntax forbids though the key is there whole: one space, one token68.
conformanceRule('AUTH-BEARER-SYNTAX-REJECTED', async ({ api, check, customersUrl, credential }) => {
  const key = credential('fullAccess');
  const variants = {
    'a tab instead of a space': `Bearer\t${key}`,
    'an extra parameter': `Bearer ${key}, realm="api"`,
    'a second token': `Bearer ${key} ${key}`,
  };
  await check.each(Object.entries(variants), async ([how, value]) => {
    const exchange = await api.get(customersUrl(), {
      headers: { Authorization: value },
      note: `Bearer with ${how}`,
    });
    check.rejected(exchange, `Bearer with ${how}`);
  });
});

conformanceRule('AUTH-DUPLICATE-HEADER-REJECTED', async ({ raw, check, customersUrl, bearer }) => {
  const valid = bearer('fullAccess');
  const invalid = 'Bearer not-a-valid-key-0000000000000000';
  const orders = { 'valid first': [valid, invalid], 'valid second': [invalid, valid] };
  await check.each(Object.entries(orders), async ([how, [first, second]]) => {
    const exchange = await raw.send({
      url: customersUrl(),
      headers: [
        ['Accept', 'application/json'],
        ['Authorization', first ?? ''],
        ['Authorization', second ?? ''],
      ],
      note: `two Authorization headers, ${how}`,
    });
    // Rejected, no data: the spec names no status for it (nor for any error).
    check.rejected(exchange, `Two Authorization headers (${how})`, {});
  });
});

conformanceRule('AUTH-URL-CREDENTIALS-IGNORED', async ({ raw, check, customersUrl, credential }) => {
  // Sent with the raw client so that the URL, key included, stays out of Playwright's step log;
  // reports show it redacted.
  await check.each(['access_token', 'api_key', 'apikey', 'key', 'token'], async (parameter) => {
    const url = new URL(customersUrl());
    url.searchParams.set(parameter, credential('probe'));
    const exchange = await raw.send({
      url: url.toString(),
      headers: [['Accept', 'application/json']],
      note: `key in ?${parameter}=`,
    });
    check.rejected(exchange, `A valid key in the URL parameter ${parameter}`, {
      codes: ['missing_authorization_header'],
    });
  });
});

// Every request carries the key in Authorization (spec §5 Scheme 1): a cookie the deployment
// handed out on a served answer is no credential. A session cookie that authenticates without the
// key — on its own host, or on any tenant's — is the finding; a load balancer's sticky cookie,
// refused like any request without Authorization, is not. The suite's client sends no cookie
// unless a rule does (requests/api-client.ts): here, and only here, the cookies go back.
conformanceRule(
  'AUTH-COOKIE-NOT-CREDENTIAL',
  async ({ api, check, customersUrl, bearer, knowledge, otherTenant }) => {
    requireOwnValues(knowledge);
    const served = check.served(
      await api.get(customersUrl(), {
        headers: { Authorization: bearer('fullAccess') },
        note: 'served first, for the cookies its answer sets',
      }),
      'The request served first',
    );
    const cookies = cookiesSetBy(served.headers['set-cookie']);
    if (cookies.length === 0)
      notApplicable(
        'not applicable: the deployment set no cookie on a served answer (GET {base_url}/customers with credentials.fullAccess), so there is no cookie to send back in place of the key.',
      );
    const names = cookies.map(({ name }) => name).join(', ');
    const headers = { Cookie: cookieField(cookies) };
    const ownHost = await api.get(customersUrl(), {
      headers,
      note: `the cookies a served answer set (${names}), without Authorization`,
    });
    const otherHost = await api.get(`${otherTenant.baseUrl}/customers`, {
      headers,
      note: `the cookies a served answer set (${names}), without Authorization, on the other tenant's host`,
    });
    await check.each([ownHost, otherHost], (exchange) =>
      exchange === ownHost
        ? check.rejected(
            ownHost,
            `The cookies of a served answer (${names}) sent back without Authorization`,
            {
              codes: ['missing_authorization_header'],
            },
          )
        : check.noDataOf(
            otherHost,
            [knowledge.own, knowledge.other],
            `The cookies of a served answer (${names}) sent back without Authorization on the other tenant's host`,
          ),
    );
  },
);
