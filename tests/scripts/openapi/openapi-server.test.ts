// docs/openapi.json against the reference server: for every response the document gives each
// operation of /customers — and for every error code a response lists — the request that
// produces it is sent, and the answer must be that response: its status, headers and body valid
// against the document (ajv), an error body equal to the example of its code. A documented
// response no request here produces fails the test, and so does any answer the document does
// not describe (tests/scripts/openapi/openapi-validator.test.ts proves that the validator says so).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ApiErrorCode } from '../../../reference-server/http/errors.ts';
import { MAX_URL_LENGTH } from '../../../reference-server/api/request-pipeline.ts';
import { DEFAULT_LIMITS } from '../../../reference-server/server.ts';
import { OpenApiValidator, readOpenApiDocument } from '../../support/openapi-validator.ts';
import {
  hostOf,
  secretOf,
  send,
  sendRaw,
  startTestServer,
  type Reply,
  type TestServer,
} from '../../support/reference-client.ts';

const PATH = '/customers';
const document = readOpenApiDocument();
const validator = new OpenApiValidator(document);

/** Short time limits, for the server that shows the 408 without waiting 10 s. */
const QUICK_LIMITS = { ...DEFAULT_LIMITS, headersTimeoutMs: 300, requestTimeoutMs: 600 };

interface Servers {
  standard: TestServer;
  quick: TestServer;
}

type Producer = (servers: Servers, method: string) => Promise<Reply>;

const bearer = (servers: Servers, keyId: string): Array<[string, string]> => [
  ['Authorization', `Bearer ${secretOf(servers.standard.fixtures, keyId)}`],
];

/** How to make the server give each answer the document can list, to a request of `method`. */
const PRODUCERS: Record<ApiErrorCode | 'success', Producer> = {
  success: (servers, method) =>
    send(servers.standard, { method, headers: bearer(servers, 'key_acme_prod_read') }),
  bad_request: (servers, method) =>
    send(servers.standard, { method, host: null, servername: hostOf('acme') }),
  request_timeout: (servers, method) =>
    // The header section never ends.
    sendRaw(servers.quick, `${method} /v1${PATH} HTTP/1.1\r\nHost: ${hostOf('acme')}\r\n`),
  uri_too_long: (servers, method) =>
    send(servers.standard, { method, path: `/v1${PATH}?q=${'a'.repeat(MAX_URL_LENGTH)}` }),
  request_header_fields_too_large: (servers, method) =>
    sendRaw(
      servers.standard,
      `${method} /v1${PATH} HTTP/1.1\r\nHost: ${hostOf('acme')}\r\nX-Big: ${'a'.repeat(DEFAULT_LIMITS.maxHeaderBytes)}\r\n\r\n`,
    ),
  misdirected_request: (servers, method) =>
    send(servers.standard, {
      method,
      servername: hostOf('acme'),
      host: hostOf('globex'),
      headers: bearer(servers, 'key_globex_prod_full'),
    }),
  https_required: (servers, method) => send(servers.standard, { method, plain: true }),
  missing_authorization_header: (servers, method) => send(servers.standard, { method }),
  invalid_api_key: (servers, method) =>
    send(servers.standard, { method, headers: bearer(servers, 'key_acme_prod_revoked') }),
  insufficient_permissions: (servers, method) =>
    send(servers.standard, { method, headers: bearer(servers, 'key_acme_prod_no_customers') }),
  not_found: (servers, method) =>
    send(servers.standard, { method, path: `/v1${PATH}/`, headers: bearer(servers, 'key_acme_prod_full') }),
  method_not_allowed: (servers, method) =>
    send(servers.standard, { method, headers: bearer(servers, 'key_acme_prod_full') }),
  internal_error: () => Promise.reject(new Error('No request is meant to produce internal_error.')),
};

interface DocumentedAnswer {
  method: string;
  status: number;
  /** The error code, or `success`. */
  answer: ApiErrorCode | 'success';
  /** The documented example body of the error code. */
  example?: unknown;
}

/** Every (method, status, code) the document lists for the path, read from the document itself. */
function documentedAnswers(): DocumentedAnswer[] {
  const pathItem = ((document.paths ?? {}) as Record<string, Record<string, unknown>>)[PATH] ?? {};
  const components = (document.components ?? {}) as { responses?: Record<string, unknown> };
  const answers: DocumentedAnswer[] = [];
  for (const [method, operation] of Object.entries(pathItem)) {
    const responses = (operation as { responses: Record<string, { $ref?: string }> }).responses;
    for (const [status, reference] of Object.entries(responses)) {
      const name = (reference.$ref ?? '').replace('#/components/responses/', '');
      const response = components.responses?.[name] as {
        content?: Record<string, { examples?: Record<string, { value: unknown }> }>;
      };
      assert.ok(response, `${method} ${PATH} ${status}: response ${reference.$ref} is not in the document`);
      const examples = response.content?.['application/json']?.examples;
      const upper = method.toUpperCase();
      if (examples === undefined) answers.push({ method: upper, status: Number(status), answer: 'success' });
      for (const [code, example] of Object.entries(examples ?? {})) {
        assert.ok(code in PRODUCERS, `${upper} ${PATH} ${status}: no request here produces ${code}`);
        answers.push({
          method: upper,
          status: Number(status),
          answer: code as ApiErrorCode,
          example: example.value,
        });
      }
    }
  }
  return answers;
}

const answers = documentedAnswers();

describe(`docs/openapi.json against the reference server: every documented answer of ${PATH}`, () => {
  const servers = {} as Servers;
  before(async () => {
    servers.standard = await startTestServer();
    servers.quick = await startTestServer({ limits: QUICK_LIMITS });
  });
  after(async () => {
    await Promise.all([servers.standard.close(), servers.quick.close()]);
  });

  test('the document lists every method, the 200 of GET and HEAD, and each error code of the catalog but internal_error', () => {
    const methods = new Set(answers.map(({ method }) => method));
    assert.deepEqual([...methods].sort(), [
      'DELETE',
      'GET',
      'HEAD',
      'OPTIONS',
      'PATCH',
      'POST',
      'PUT',
      'TRACE',
    ]);
    const successes = answers.filter(({ answer }) => answer === 'success').map(({ method }) => method);
    assert.deepEqual(successes.sort(), ['GET', 'HEAD']);
    const codes = new Set(answers.map(({ answer }) => answer));
    const expected = Object.keys(PRODUCERS).filter((code) => code !== 'internal_error');
    assert.deepEqual([...codes].sort(), expected.sort());
  });

  for (const { method, status, answer, example } of answers) {
    test(`${method} ${status} ${answer}`, async () => {
      const reply = await PRODUCERS[answer](servers, method);
      assert.equal(
        reply.status,
        status,
        `${method} ${PATH} for ${answer}: got ${reply.status} ${reply.body}`,
      );
      assert.deepEqual(validator.problems(method, PATH, reply), []);
      if (method === 'HEAD') return;
      if (answer === 'success') {
        assert.ok(
          (JSON.parse(reply.body) as { data: unknown[] }).data.length > 0,
          'the list holds customers',
        );
      } else {
        assert.deepEqual(JSON.parse(reply.body), example, 'the body is the documented example of its code');
      }
    });
  }
});
