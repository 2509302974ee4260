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

test('a comma starts a cookie only before a token and "=", with or without spaces; names and values are trimmed', () => {
  assert.deepEqual(cookiesSetBy('a=1,b=2'), [
    { name: 'a', value: '1' },
    { name: 'b', value: '2' },
  ]);
  assert.deepEqual(cookiesSetBy("a=1,   !#$%&'*+-.^_`|~Zz9=2"), [
    { name: 'a', value: '1' },
    { name: "!#$%&'*+-.^_`|~Zz9", value: '2' },
  ]);
  // A comma before anything else (a date, a space-separated word) stays in its cookie's attributes.
  assert.deepEqual(cookiesSetBy('a=1; Expires=Wed, 04 Dec 2026; Path=/, b c=2'), [{ name: 'a', value: '1' }]);
  assert.deepEqual(cookiesSetBy(' sid = v 1 ;Path=/\n  id2=x=y; Secure'), [
    { name: 'sid', value: 'v 1' },
    { name: 'id2', value: 'x=y' },
  ]);
  // No "=", or nothing before it: not a cookie; the others are kept.
  assert.deepEqual(cookiesSetBy('flag; Secure\n=x\nok=1'), [{ name: 'ok', value: '1' }]);
  assert.deepEqual(cookiesSetBy('\n'), []);
});

test('the Cookie field: each name=value, joined by "; ", nothing for no cookie', () => {
  assert.equal(cookieField([]), '');
  assert.equal(cookieField([{ name: 'a', value: '' }]), 'a=');
  assert.equal(
    cookieField([
      { name: 'a', value: '1' },
      { name: 'b', value: '2' },
      { name: 'c', value: '3' },
    ]),
    'a=1; b=2; c=3',
  );
});
