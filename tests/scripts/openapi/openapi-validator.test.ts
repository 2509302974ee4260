// The validator the server test relies on: it passes an answer the document describes, and names
// every way an answer departs from it. Without these cases, a validator that passes everything
// would make the server test pass whatever the server sends.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { apiError, errorBody, type ApiErrorCode } from '../../../reference-server/http/errors.ts';
import { OpenApiValidator, readOpenApiDocument, type Answer } from '../../support/openapi-validator.ts';

const validator = new OpenApiValidator(readOpenApiDocument());

const COMMON = [
  'Cache-Control',
  'no-store',
  'X-Content-Type-Options',
  'nosniff',
  'Strict-Transport-Security',
  'max-age=31536000',
  'Content-Type',
  'application/json; charset=utf-8',
];

/** The answer the server sends for `code`, built from the catalog as the server builds it. */
function errorAnswer(code: ApiErrorCode, change: Partial<Answer> = {}): Answer {
  const { status, headers } = apiError(code);
  return {
    status,
    rawHeaders: [...COMMON, ...Object.entries(headers).flat()],
    body: JSON.stringify(errorBody(code)),
    ...change,
  };
}

const customers = {
  object: 'list',
  data: [
    {
      id: 'cus_acme_prod_001',
      object: 'customer',
      name: 'Ada',
      email: 'ada@example.com',
      created_at: '2024-01-15T09:30:00Z',
    },
  ],
  has_more: false,
};
const okAnswer = (change: Partial<Answer> = {}): Answer => ({
  status: 200,
  rawHeaders: COMMON,
  body: JSON.stringify(customers),
  ...change,
});

function without(rawHeaders: readonly string[], name: string): string[] {
  const kept: string[] = [];
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    if (rawHeaders[index] !== name) kept.push(rawHeaders[index] as string, rawHeaders[index + 1] as string);
  }
  return kept;
}

describe('OpenAPI validator', () => {
  test('passes answers the document describes', () => {
    assert.deepEqual(validator.problems('GET', '/customers', okAnswer()), []);
    assert.deepEqual(validator.problems('HEAD', '/customers', okAnswer({ body: '' })), []);
    assert.deepEqual(
      validator.problems('GET', '/customers', errorAnswer('missing_authorization_header')),
      [],
    );
    assert.deepEqual(validator.problems('GET', '/customers', errorAnswer('invalid_api_key')), []);
    assert.deepEqual(validator.problems('POST', '/customers', errorAnswer('method_not_allowed')), []);
  });

  const undescribed: Array<{ name: string; method?: string; answer: Answer; problem: RegExp }> = [
    {
      name: 'a status the operation does not document',
      answer: okAnswer({ status: 418 }),
      problem: /status 418 is not a documented response of GET \/customers/,
    },
    {
      name: 'a 405 to GET (documented only for the other methods)',
      answer: errorAnswer('method_not_allowed'),
      problem: /status 405 is not a documented response/,
    },
    {
      name: 'a 500, which the document leaves out as a defect',
      answer: errorAnswer('internal_error'),
      problem: /status 500 is not a documented response/,
    },
    {
      name: 'a method the document does not describe',
      method: 'CONNECT',
      answer: errorAnswer('method_not_allowed'),
      problem: /CONNECT \/customers is not in the document/,
    },
    {
      name: 'a 401 without its required challenge',
      answer: errorAnswer('invalid_api_key', {
        rawHeaders: without(errorAnswer('invalid_api_key').rawHeaders, 'WWW-Authenticate'),
      }),
      problem: /required header WWW-Authenticate is missing/,
    },
    {
      name: 'a 401 with another challenge',
      answer: errorAnswer('invalid_api_key', {
        rawHeaders: [...COMMON, 'WWW-Authenticate', 'Basic realm="api"'],
      }),
      problem: /header WWW-Authenticate: "Basic realm=\\"api\\"" \$: must be one of "Bearer realm=/,
    },
    {
      name: 'two challenges (field lines are joined, as RFC 9110 reads them)',
      answer: errorAnswer('invalid_api_key', {
        rawHeaders: [...errorAnswer('invalid_api_key').rawHeaders, 'WWW-Authenticate', 'Bearer realm="api"'],
      }),
      problem: /header WWW-Authenticate:/,
    },
    {
      name: 'a 401 carrying a code of another status',
      answer: errorAnswer('invalid_api_key', { body: JSON.stringify(errorBody('not_found')) }),
      problem: /body \$\.error\.code: must be one of "missing_authorization_header", "invalid_api_key"/,
    },
    {
      name: 'an error body with a member the spec does not have',
      answer: errorAnswer('not_found', {
        body: JSON.stringify({ ...errorBody('not_found'), detail: 'x' }),
      }),
      problem: /body \$: unknown property "detail"/,
    },
    {
      name: 'an answer that may be cached',
      answer: okAnswer({ rawHeaders: [...without(COMMON, 'Cache-Control'), 'Cache-Control', 'max-age=60'] }),
      problem: /header Cache-Control: "max-age=60" \$: must be equal to constant/,
    },
    {
      name: 'an answer without HSTS',
      answer: okAnswer({ rawHeaders: without(COMMON, 'Strict-Transport-Security') }),
      problem: /required header Strict-Transport-Security is missing/,
    },
    {
      name: 'a success body of another shape',
      answer: okAnswer({ body: JSON.stringify({ ...customers, total: 1 }) }),
      problem: /body \$: unknown property "total"/,
    },
    {
      name: 'a customer whose fields are wrong',
      answer: okAnswer({
        body: JSON.stringify({ ...customers, data: [{ ...customers.data[0], email: 'not an address' }] }),
      }),
      problem: /body \$\.data\[0\]\.email: must match format "email"/,
    },
    {
      name: 'a body that is not JSON',
      answer: okAnswer({ body: '<html>' }),
      problem: /the body is not JSON/,
    },
    {
      name: 'another media type',
      answer: okAnswer({
        rawHeaders: [...without(COMMON, 'Content-Type'), 'Content-Type', 'text/plain'],
      }),
      problem: /Content-Type text\/plain is not documented/,
    },
    {
      name: 'no Content-Type at all',
      answer: okAnswer({ rawHeaders: without(COMMON, 'Content-Type') }),
      problem: /no Content-Type/,
    },
  ];
  for (const { name, method = 'GET', answer, problem } of undescribed) {
    test(`fails ${name}`, () => {
      const problems = validator.problems(method, '/customers', answer);
      assert.ok(
        problems.some((text) => problem.test(text)),
        `expected a problem matching ${problem}, got ${JSON.stringify(problems)}`,
      );
    });
  }
});
