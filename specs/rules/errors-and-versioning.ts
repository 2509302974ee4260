// Spec §7 Error body and §9 Versioning, and how answers may be cached (RFC 9111).
import { defineRule } from '../../conformance/run/rule-declaration.ts';
import type { ErrorBody } from '../../schemas/generated/error.ts';
import { isJsonContentType, jsonBody, type Exchange } from '../../conformance/requests/exchange.ts';
import { unknownKeyLike } from '../../conformance/judging/key-variants.ts';
import { notEvaluated } from '../../conformance/run/rule-end.ts';
import type { RuleContext } from '../../conformance/run/rule-context.ts';

/** One request per error the target can be made to answer with the credentials it has. */
async function errorResponses({ api, customersUrl, target }: RuleContext): Promise<Exchange[]> {
  const requests = [
    api.get(customersUrl(), { note: 'no Authorization header' }),
    api.get(customersUrl(), {
      headers: { Authorization: `Bearer ${unknownKeyLike(target.credentials.fullAccess)}` },
      note: 'an unknown key',
    }),
  ];
  const noPermission = target.credentials.noCustomersPermission;
  if (noPermission !== undefined) {
    requests.push(
      api.get(customersUrl(), {
        headers: { Authorization: `Bearer ${noPermission}` },
        note: 'a key without the permission',
      }),
    );
  }
  return Promise.all(requests);
}

/** What keeps a shared cache from giving an answer to other credentials (RFC 9111 §3.5, §4.1). */
function keptFromSharedCaches(headers: Record<string, string>): boolean {
  const directives = (headers['cache-control'] ?? '')
    .toLowerCase()
    .split(',')
    .map((part) => part.trim());
  const varies = (headers.vary ?? '')
    .toLowerCase()
    .split(',')
    .map((part) => part.trim());
  return (
    directives.some((directive) => /^(no-store|private)\b/.test(directive)) ||
    varies.includes('authorization') ||
    varies.includes('*')
  );
}

const NOT_FOUND_STATUSES = [404, 410];

export const ERRORS_AND_VERSIONING_RULES = [
  defineRule({
    id: 'ERROR-BODY-SHAPE',
    level: 'MUST',
    source: 'spec §7 Error body',
    statement:
      'Every authentication error is a JSON object with one member `error` holding the string fields `code` and `message`, sent as application/json.',
    needs: [],
    reads: 'any-answer',
    check: async (context) => {
      const { check } = context;
      // Loaded here, not with the module: the catalog (and the package's entry point) loads every
      // declaration, and ajv would be most of its import time (bench/import-cost.ts).
      const { describeSchemaErrors, validatorFor } = await import('../../schemas/validators.ts');
      const validate = validatorFor<ErrorBody>('error.schema.json');
      await check.each(await errorResponses(context), (exchange) => {
        const response = check.response(exchange, 'An error');
        // A success is not an error body: whether it should have been an error is another rule's
        // verdict (PERM-INSUFFICIENT-REJECTED, …), not a malformed error.
        if (response.status < 400) return;
        if (!isJsonContentType(response)) {
          check.fail(
            `An error is sent as "${response.headers['content-type'] ?? 'no content type'}", not application/json. ${check.describe(response)}`,
            response,
          );
        }
        if (!validate(jsonBody(response))) {
          check.fail(
            `An error body does not have the shape of spec §7: ${describeSchemaErrors(validate.errors).join('; ')}. ${check.describe(response)}`,
            response,
          );
        }
      });
    },
  }),
  defineRule({
    id: 'ERROR-NO-STORE',
    level: 'ADVISORY',
    source: 'OWASP ASVS 5.0, data protection; RFC 9111 §5.2.2.5',
    statement: 'Responses to authenticated requests and error responses carry Cache-Control: no-store.',
    needs: [],
    reads: 'any-answer',
    check: async (context) => {
      const { check, api, customersUrl, target } = context;
      const exchanges = await errorResponses(context);
      if (target.credentials.fullAccess !== undefined) {
        exchanges.push(
          await api.get(customersUrl(), {
            headers: { Authorization: `Bearer ${target.credentials.fullAccess}` },
          }),
        );
      }
      await check.each(exchanges, (exchange) =>
        check.header(exchange, 'Cache-Control', /\bno-store\b/i, 'A response to an API request'),
      );
    },
  }),
  // Unlike ERROR-NO-STORE (advisory: no-store on every answer), this asks only what keeps a shared
  // cache from reusing a served answer: `private` passes here and warns there.
  defineRule({
    id: 'CACHE-SERVED-NOT-SHARED',
    level: 'HTTP',
    source: 'RFC 9111 §3.5, §5.2.2.5, §5.2.2.7, §4.1',
    statement:
      'A 200 answer with data carries Cache-Control: no-store or private, or Vary: Authorization (or Vary: *), so that no shared cache gives it to a request with other credentials.',
    needs: ['credentials.fullAccess'],
    // A header of the served answer; without a served answer (a 404, say), not evaluated.
    reads: 'tenant-comparison',
    check: async ({ api, check, customersUrl, bearer }) => {
      const response = check.response(
        await api.get(customersUrl(), { headers: { Authorization: bearer('fullAccess') } }),
        'A served request',
      );
      if (response.status !== 200) {
        notEvaluated(
          `not evaluated: GET {base_url}/customers with credentials.fullAccess got ${response.status}, not 200, so there is no served answer to check (KEY-VALID-SERVED judges that).`,
        );
      }
      if (!keptFromSharedCaches(response.headers)) {
        check.fail(
          `A 200 answer with data can be stored by a shared cache and given to other credentials: it has neither Cache-Control: no-store or private nor Vary: Authorization (Cache-Control ${JSON.stringify(response.headers['cache-control'] ?? 'none')}, Vary ${JSON.stringify(response.headers.vary ?? 'none')}). ${check.describe(response)}`,
          response,
        );
      }
    },
  }),
  // Which answer a keyless request gets (status, error code, JSON or an HTML page) is the business
  // of AUTH-MISSING-HEADER and ERROR-BODY-SHAPE; this rule only asks whether {base_url}/customers
  // is missing, and fails only on that evidence: a 404 or 410. Any other answer — a 401 with an
  // HTML body included — is the versioned path answering. Transient answers never reach here
  // (requests/send.ts sends them again), and no answer at all ends the rule as ERROR.
  defineRule({
    id: 'VERSION-PATH',
    level: 'MUST',
    source: 'spec §9; §4 base_url',
    statement:
      'The version is in the path: the base URL ends in /v1, and GET {base_url}/customers answers as the API (an authentication error or data, whatever its body), not as a missing resource (404 or 410).',
    needs: [],
    reads: 'authenticated-path',
    check: async ({ api, check, customersUrl, target }) => {
      if (new URL(target.baseUrl).pathname !== '/v1')
        check.fail(`The base URL ${target.baseUrl} does not end in /v1.`);
      const versioned = check.response(
        await api.get(customersUrl(), { note: 'no Authorization header' }),
        `GET ${customersUrl()} without a key`,
      );
      if (!NOT_FOUND_STATUSES.includes(versioned.status)) return;
      const unversionedUrl = new URL('/customers', target.baseUrl).toString();
      const unversioned = await api.get(unversionedUrl, { note: 'no Authorization header, no version' });
      const servedWithoutVersion =
        unversioned.kind === 'response' && !NOT_FOUND_STATUSES.includes(unversioned.status);
      check.fail(
        servedWithoutVersion
          ? `{base_url}/customers is not found (${versioned.status}) while ${unversionedUrl} answers (${unversioned.status}): the API is not under /v1.`
          : `{base_url}/customers is not found (${versioned.status}): the versioned path does not serve the customers resource.`,
        versioned,
        unversioned,
      );
    },
  }),
];
