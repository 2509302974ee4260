// The one error table of the reference server (reference-server/http/errors.ts): the tenant API and
// the admin API answer from it, each only the codes whose row has its words, and a code both answer
// keeps each surface's own message and header fields.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { adminError, apiError, errorAnswer, errorCodesOf } from '../../../reference-server/http/errors.ts';

const messageOf = (answer: { body: unknown }): string =>
  (answer.body as { error: { message: string } }).error.message;

describe('the error table', () => {
  test('the surfaces share exactly the codes both answer, and no surface answers the other one’s own', () => {
    const api = errorCodesOf('api');
    const admin = errorCodesOf('admin');
    assert.deepEqual(
      api.filter((code) => (admin as string[]).includes(code)),
      ['not_found', 'method_not_allowed', 'internal_error'],
    );
    assert.ok(api.includes('misdirected_request') && !(admin as string[]).includes('misdirected_request'));
    assert.ok(admin.includes('key_revoked') && !(api as string[]).includes('key_revoked'));
  });

  test('a code both surfaces answer says each surface’s own words', () => {
    assert.equal(messageOf(apiError('not_found')), 'No resource exists at this path. See GET /v1/customers.');
    assert.equal(
      messageOf(adminError('not_found')),
      'No admin endpoint exists at this path. See docs/key-management.md.',
    );
    // The tenant API's one resource always allows the same methods; the admin API names them per answer.
    assert.deepEqual(apiError('method_not_allowed').headers, { Allow: 'GET, HEAD' });
    assert.deepEqual(adminError('method_not_allowed').headers, {});
    assert.equal(messageOf(adminError('method_not_allowed')), 'This method is not allowed on this endpoint.');
    assert.equal(messageOf(apiError('internal_error')), messageOf(adminError('internal_error')));
  });

  test('an answer is the row’s status, its header fields, its challenge, then those of the answer alone', () => {
    const unauthorized = adminError('admin_unauthorized', undefined, { Connection: 'close' });
    assert.equal(unauthorized.status, 401);
    assert.deepEqual(Object.entries(unauthorized.headers), [
      ['WWW-Authenticate', 'Bearer realm="admin"'],
      ['Connection', 'close'],
    ]);
    const invalid = apiError('invalid_api_key');
    assert.deepEqual(invalid.headers, { 'WWW-Authenticate': 'Bearer realm="api", error="invalid_token"' });
    assert.equal(invalid.errorCode, 'invalid_api_key');
    const detailed = adminError(
      'invalid_request',
      'The query parameter environment must be production or sandbox.',
    );
    assert.deepEqual(detailed.body, {
      error: {
        code: 'invalid_request',
        message: 'The query parameter environment must be production or sandbox.',
      },
    });
  });

  test('the tenant API’s answers are built once and frozen; the admin API’s anew each time', () => {
    assert.equal(apiError('bad_request'), apiError('bad_request'));
    assert.ok(Object.isFrozen(apiError('bad_request')) && Object.isFrozen(apiError('bad_request').headers));
    assert.notEqual(adminError('key_not_found'), adminError('key_not_found'));
    assert.ok(!Object.isFrozen(adminError('key_not_found')));
  });

  test('a code of the other surface does not compile, and is refused with what to do if forced', () => {
    // @ts-expect-error key_revoked is the admin API's alone
    assert.throws(() => errorAnswer('api', 'key_revoked'), {
      message: /^The error code key_revoked has no message for the api surface in the error table/,
    });
    // @ts-expect-error misdirected_request is the tenant API's alone
    assert.throws(() => adminError('misdirected_request'), {
      message: /^The error code misdirected_request has no message for the admin surface/,
    });
    // @ts-expect-error request_timeout is the tenant API's alone
    assert.throws(() => errorAnswer('admin', 'request_timeout'));
  });
});
