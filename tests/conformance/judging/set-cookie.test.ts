// The cookies an answer set, read from Set-Cookie as each client joins repeated fields: the cookie
// rule sends back exactly these, so a date's comma must not split one and a join must not hide one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cookieField, cookiesSetBy } from '../../../conformance/judging/set-cookie.ts';

const ALB = 'AWSALB=a/b+c==; Expires=Wed, 04 Dec 2026 09:00:00 GMT; Path=/';
const CORS = 'AWSALBCORS=a/b+c==; Expires=Wed, 04 Dec 2026 09:00:00 GMT; Path=/; SameSite=None; Secure';

test('joined by a line break (Playwright) or ", " (the raw client, HTTP/2): each cookie once, dates kept whole', () => {
  const expected = [
    { name: 'AWSALB', value: 'a/b+c==' },
    { name: 'AWSALBCORS', value: 'a/b+c==' },
  ];
  assert.deepEqual(cookiesSetBy(`${ALB}\n${CORS}`), expected);
  assert.deepEqual(cookiesSetBy(`${ALB}, ${CORS}`), expected);
  assert.equal(cookieField(expected), 'AWSALB=a/b+c==; AWSALBCORS=a/b+c==');
});

test('none set, or nothing that is a cookie: no cookie', () => {
  assert.deepEqual(cookiesSetBy(undefined), []);
  assert.deepEqual(cookiesSetBy(''), []);
  assert.deepEqual(cookiesSetBy('=novalue; Path=/'), []);
  assert.deepEqual(cookiesSetBy('sid=; Path=/'), [{ name: 'sid', value: '' }]);
});
