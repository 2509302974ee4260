// Spec §7 Error body and §9 Versioning.
import type { ErrorBody } from '../schemas/generated/error.ts';
import { describeSchemaErrors, validatorFor } from '../schemas/validators.ts';
import { isJsonContentType, jsonBody, type Exchange } from '../conformance/exchange.ts';
import { unknownKeyLike } from '../conformance/key-variants.ts';
import { conformanceRule, type RuleContext } from '../conformance/test.ts';

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

conformanceRule('ERROR-BODY-SHAPE', async (context) => {
  const { check } = context;
  const validate = validatorFor<ErrorBody>('error.schema.json');
  for (const exchange of await errorResponses(context)) {
    const response = check.response(exchange, 'An error');
    // A success is not an error body: whether it should have been an error is another rule's
    // verdict (PERM-INSUFFICIENT-REJECTED, …), not a malformed error.
    if (response.status < 400) continue;
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
  }
});

conformanceRule('ERROR-NO-STORE', async (context) => {
  const { check, api, customersUrl, target } = context;
  const exchanges = await errorResponses(context);
  if (target.credentials.fullAccess !== undefined) {
    exchanges.push(
      await api.get(customersUrl(), {
        headers: { Authorization: `Bearer ${target.credentials.fullAccess}` },
      }),
    );
  }
  for (const exchange of exchanges)
    check.header(exchange, 'Cache-Control', /\bno-store\b/i, 'A response to an API request');
});

conformanceRule('VERSION-PATH', async ({ api, check, customersUrl, target }) => {
  if (new URL(target.baseUrl).pathname !== '/v1')
    check.fail(`The base URL ${target.baseUrl} does not end in /v1.`);
  // Without a key, the versioned resource must answer as an API resource: an authentication error,
  // not "not found".
  const exchange = await api.get(customersUrl(), { note: 'no Authorization header' });
  check.rejected(exchange, `GET ${customersUrl()} without a key`, {
    codes: ['missing_authorization_header'],
    noDataOf: [],
  });
});
