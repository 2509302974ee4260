// Spec §5 Scheme: `Authorization: Bearer <API_KEY>`, no quotes, no credentials in URLs; §7 codes.
//
// AUTH-H2-DUPLICATE-AUTHORIZATION-REJECTED is a rule of HTTP/2's own (RFC 9113 against spec §5): a
// header block with two authorization fields. It speaks HTTP/2 whenever the target offers it
// (`overHttp2`), is not applicable when it does not, and is registered by specs/http2.spec.ts.
import { defineRule } from '../../conformance/run/rule-declaration.ts';
import type { RuleContext } from '../../conformance/run/rule-context.ts';
import { notApplicable } from '../../conformance/run/rule-end.ts';
import { cookieField, cookiesSetBy } from '../../conformance/judging/set-cookie.ts';
import { requireOwnValues } from '../tenant-data.ts';
import { conditionalProbes } from '../conditional-requests.ts';

const AUTH_CODES = ['missing_authorization_header', 'invalid_api_key'] as const;

const INVALID_BEARER = 'Bearer not-a-valid-key-0000000000000000';

/** Each Authorization value of `variants` (named by how it is written) is sent and must be rejected. */
async function eachRejected(
  { api, check, customersUrl }: RuleContext,
  variants: Readonly<Record<string, string>>,
  words: { note: (how: string) => string; what: (how: string) => string; codes?: readonly string[] },
): Promise<void> {
  await check.each(Object.entries(variants), async ([how, value]) => {
    const exchange = await api.get(customersUrl(), {
      headers: { Authorization: value },
      note: words.note(how),
    });
    check.rejected(exchange, words.what(how), words.codes ? { codes: words.codes } : {});
  });
}

export const AUTHORIZATION_HEADER_RULES = [
  defineRule({
    id: 'AUTH-MISSING-HEADER',
    level: 'MUST',
    source: 'spec §7 Authentication errors',
    statement: 'A request without an Authorization header is rejected with missing_authorization_header.',
    needs: [],
    reads: 'authenticated-path',
    check: async ({ api, check, customersUrl, knowledge }) => {
      // Also as a client with a stored copy asks: a conditional request is a request (spec §1).
      const probes = [undefined, ...conditionalProbes(knowledge)];
      await check.each(probes, async (probe) => {
        const exchange = await api.get(customersUrl(), probe ?? {});
        const what = `A request without Authorization${probe ? ` (${probe.note})` : ''}`;
        check.rejected(exchange, what, { codes: ['missing_authorization_header'] });
      });
    },
  }),
  defineRule({
    id: 'AUTH-MISSING-HEADER-401',
    level: 'HTTP',
    source: 'RFC 9110 §11.6.1; RFC 6750 §3',
    statement: 'A request without credentials is answered 401 with a WWW-Authenticate: Bearer challenge.',
    needs: [],
    reads: 'authenticated-path',
    check: async ({ api, check, customersUrl }) => {
      const exchange = await api.get(customersUrl());
      check.status(exchange, [401], 'A request without Authorization');
      check.header(exchange, 'WWW-Authenticate', /^\s*Bearer\b/i, 'A request without Authorization');
    },
  }),
  defineRule({
    id: 'AUTH-OTHER-SCHEME-REJECTED',
    level: 'MUST',
    source: 'spec §5 Scheme 1',
    statement:
      'A key sent with another scheme (Basic, Token) or without a scheme is rejected with missing_authorization_header or invalid_api_key, with no data.',
    needs: ['credentials.fullAccess'],
    reads: 'authenticated-path',
    check: async (context) => {
      const { credential } = context;
      const key = credential('fullAccess');
      const variants = {
        Basic: `Basic ${Buffer.from(`${key}:`).toString('base64')}`,
        Token: `Token ${key}`,
        'no scheme': key,
      };
      await eachRejected(context, variants, {
        note: (how) => `the key with ${how}`,
        what: (how) => `A valid key with ${how}`,
        codes: AUTH_CODES,
      });
    },
  }),
  defineRule({
    id: 'AUTH-SCHEME-CASE-INSENSITIVE',
    level: 'ADVISORY',
    source: 'RFC 9110 §11.1',
    statement: 'The scheme name is case-insensitive: `bearer` and `BEARER` work like `Bearer`.',
    needs: ['credentials.fullAccess'],
    reads: 'authenticated-path',
    check: async ({ api, check, customersUrl, credential }) => {
      await check.each(['bearer', 'BEARER'], async (scheme) => {
        const exchange = await api.get(customersUrl(), {
          headers: { Authorization: `${scheme} ${credential('fullAccess')}` },
          note: `scheme written "${scheme}"`,
        });
        check.served(exchange, `A valid key with the scheme written "${scheme}"`);
      });
    },
  }),
  defineRule({
    id: 'AUTH-QUOTED-KEY-REJECTED',
    level: 'MUST',
    source: 'spec §5 Scheme 2',
    statement:
      'A key in double or single quotes is rejected with invalid_api_key, with no data; quotes are never stripped.',
    needs: ['credentials.fullAccess'],
    reads: 'authenticated-path',
    check: async ({ api, check, customersUrl, credential }) => {
      await check.each(['"', "'"], async (quote) => {
        const exchange = await api.get(customersUrl(), {
          headers: { Authorization: `Bearer ${quote}${credential('fullAccess')}${quote}` },
          note: `the key in ${quote === '"' ? 'double' : 'single'} quotes`,
        });
        check.rejected(exchange, `A valid key in ${quote === '"' ? 'double' : 'single'} quotes`, {
          codes: ['invalid_api_key'],
        });
      });
    },
  }),
  // What the spec forbids: a Bearer header that does not carry the key (none, or the key cut in two).
  defineRule({
    id: 'AUTH-MALFORMED-BEARER-REJECTED',
    level: 'MUST',
    source: 'spec §5 Scheme 1; §1 (every request is authenticated with an API key)',
    statement:
      'Bearer with an empty token, or with a space inside the key (the key cut in two), is rejected, with no data: neither carries the key.',
    needs: ['credentials.fullAccess'],
    reads: 'refusal',
    check: async (context) => {
      const { credential } = context;
      const key = credential('fullAccess');
      const middle = Math.floor(key.length / 2);
      const variants = {
        'an empty token': 'Bearer',
        'a space inside the key': `Bearer ${key.slice(0, middle)} ${key.slice(middle)}`,
      };
      await eachRejected(context, variants, {
        note: (how) => `Bearer with ${how}`,
        what: (how) => `Bearer with ${how}`,
      });
    },
  }),
  // What RFC 6750 §2.1's syntax forbids though the key is there whole: one space, one token68.
  defineRule({
    id: 'AUTH-BEARER-SYNTAX-REJECTED',
    level: 'HTTP',
    source: 'RFC 6750 §2.1; RFC 9110 §11.4',
    statement:
      'Bearer followed by a tab instead of a space, by the key and extra parameters, or by the key twice is rejected, with no data: the syntax is exactly one space and one token68.',
    needs: ['credentials.fullAccess'],
    reads: 'refusal',
    check: async (context) => {
      const { credential } = context;
      const key = credential('fullAccess');
      const variants = {
        'a tab instead of a space': `Bearer\t${key}`,
        'an extra parameter': `Bearer ${key}, realm="api"`,
        'a second token': `Bearer ${key} ${key}`,
      };
      await eachRejected(context, variants, {
        note: (how) => `Bearer with ${how}`,
        what: (how) => `Bearer with ${how}`,
      });
    },
  }),
  defineRule({
    id: 'AUTH-DUPLICATE-HEADER-REJECTED',
    level: 'MUST',
    source: 'spec §5 Scheme 1',
    statement:
      'A request with two Authorization headers is rejected (an error status; the spec names none), with no data, whichever comes first.',
    needs: ['credentials.fullAccess'],
    reads: 'refusal',
    check: async ({ raw, check, customersUrl, bearer }) => {
      const valid = bearer('fullAccess');
      const orders = { 'valid first': [valid, INVALID_BEARER], 'valid second': [INVALID_BEARER, valid] };
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
    },
  }),
  defineRule({
    id: 'AUTH-H2-DUPLICATE-AUTHORIZATION-REJECTED',
    level: 'MUST',
    source: 'spec §5 Scheme 1; RFC 9113 §4.3, §8.2',
    statement:
      'Over HTTP/2, a request whose header block holds two authorization fields — both in its HEADERS frame, or the second in a CONTINUATION frame — is rejected (an error status, or its stream reset), with no data, whichever comes first.',
    needs: ['credentials.fullAccess'],
    http2Only: true,
    reads: 'refusal',
    check: async ({ overHttp2, check, customersUrl, bearer }) => {
      const http2 = await overHttp2();
      const valid = bearer('fullAccess');
      const shapes = [
        { how: 'valid first, one HEADERS frame', fields: [valid, INVALID_BEARER], frames: 1 },
        { how: 'valid second, one HEADERS frame', fields: [INVALID_BEARER, valid], frames: 1 },
        {
          how: 'valid first, the second in a CONTINUATION frame',
          fields: [valid, INVALID_BEARER],
          frames: 2,
        },
        { how: 'valid second, in a CONTINUATION frame', fields: [INVALID_BEARER, valid], frames: 2 },
      ];
      await check.each(shapes, async ({ how, fields, frames }) => {
        const exchange = await http2.send({
          url: customersUrl(),
          headers: [
            ['Accept', 'application/json'],
            ...fields.map((value): [string, string] => ['authorization', value]),
          ],
          headerFrames: frames,
          note: `two authorization fields, ${how}`,
          refusalExpected: true,
        });
        // A stream reset is a rejection too: HTTP/2 treats a malformed request as a stream error.
        // Rejected, no data: the spec names no status for it (nor for any error).
        check.rejected(exchange, `Two authorization fields (${how})`, { allowNoResponse: true });
      });
    },
  }),
  defineRule({
    id: 'AUTH-URL-CREDENTIALS-IGNORED',
    level: 'MUST',
    source: 'spec §5 Scheme 5',
    statement:
      'A valid key in a URL parameter (access_token, api_key, apikey, key, token) never authenticates: the request is rejected with missing_authorization_header, with no data.',
    needs: ['credentials.probe'],
    reads: 'authenticated-path',
    check: async ({ raw, check, customersUrl, credential }) => {
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
    },
  }),
  // Every request carries the key in Authorization (spec §5 Scheme 1): a cookie the deployment
  // handed out on a served answer is no credential. A session cookie that authenticates without the
  // key — on its own host, or on any tenant's — is the finding; a load balancer's sticky cookie,
  // refused like any request without Authorization, is not. The suite's client sends no cookie
  // unless a rule does (requests/api-client.ts): here, and only here, the cookies go back.
  defineRule({
    id: 'AUTH-COOKIE-NOT-CREDENTIAL',
    level: 'MUST',
    source: 'spec §5 Scheme 1; §7',
    statement:
      "The key in Authorization is the only credential: the cookies the deployment set on a served answer, sent back without Authorization, get no data and missing_authorization_header on this tenant's host, and no tenant's data on the other tenant's host. Not applicable when a served answer sets no cookie.",
    needs: ['credentials.fullAccess', 'otherTenantBaseUrl'],
    // Without the tenant's own data to look for, not evaluated.
    reads: 'tenant-comparison',
    // The reference sets no cookie on a served answer: there is none to send back.
    notApplicableOnReference: 'set no cookie on a served answer',
    check: async ({ api, check, customersUrl, bearer, knowledge, otherTenant }) => {
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
  }),
];
