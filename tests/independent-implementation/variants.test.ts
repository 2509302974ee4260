// Every open choice of the spec, taken the other way: each variant of the independent
// implementation is as correct as the default one, so the suite must find it CONFORMANT too —
// with a warning only where the variant is an advisory deviation. A probe first shows that the
// variant really answers differently, so that a pass is about that choice; the suite checks every
// variant in one batch (tests/support/batched-runs.ts), each a run of its own.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { batchOfDeployments } from '../support/batched-runs.ts';
import type { ServerChoices } from './choices.ts';
import type { KeyName } from './directory.ts';
import { writeIndependentTarget } from './independent-target.ts';
import { startIndependentServer } from './server.ts';
import { assertConformant, probe, type Probe, type ProbeAnswer } from './run-support.ts';

interface Shown {
  /** What the request shows, for a failure message (never the request itself: it holds keys). */
  what: string;
  /** The request that shows a choice; `plain` sends it over plain HTTP. */
  request: Omit<Probe, 'port' | 'ca'> & { plain?: boolean };
  /** The answer, or the `code` of the error with which the request failed. */
  answer: Pick<ProbeAnswer, 'status' | 'code' | 'cacheControl' | 'vary'> | { failure: string };
}

interface Variant {
  name: string;
  choices: Partial<ServerChoices>;
  /** One request per choice, given the keys, with the answer that shows it was taken. */
  shownBy: (keys: Record<KeyName, string>) => Shown[];
  /** The rules that must warn, and only they. */
  warnings: string[];
}

const ACME = 'acme.api.localhost';
const bearer = (key: string): [string, string] => ['Authorization', `Bearer ${key}`];
const JSON_HEADERS: [string, string][] = [
  ['Accept', 'application/json'],
  ['Content-Type', 'application/json'],
];

// Choices are grouped so that one run checks several (each touches other rules, so a failure
// still names the choice): a run of the suite is the slow part.
const VARIANTS: Variant[] = [
  {
    name: 'the other answer to each open choice: missing_authorization_header for another scheme, 401 for two Authorization headers, 404 for a host of no tenant, 403 on plain HTTP',
    choices: {
      otherSchemeCode: 'missing_authorization_header',
      duplicateAuthorization: 'invalid-key',
      unknownTenant: 'not-found',
      plainHttp: 'answers-403',
    },
    shownBy: (keys) => [
      {
        what: 'a key with the Token scheme',
        request: { host: ACME, headers: [['Authorization', `Token ${keys.acmeLiveFull}`]] },
        answer: { status: 401, code: 'missing_authorization_header' },
      },
      {
        what: 'two Authorization headers',
        request: { host: ACME, headers: [bearer(keys.acmeLiveFull), bearer(keys.acmeLiveFull)] },
        answer: { status: 401, code: 'invalid_api_key' },
      },
      {
        what: 'a host of no tenant',
        request: { host: 'initech.api.localhost', headers: [bearer(keys.acmeLiveFull)] },
        answer: { status: 404, code: 'unknown_host' },
      },
      {
        what: 'plain HTTP',
        request: { host: ACME, plain: true },
        answer: { status: 403, code: 'https_required' },
      },
    ],
    warnings: [],
  },
  {
    name: 'advisory choices: only `Bearer` in that letter case, 403 for another tenant’s key, routing by Host alone (a connection opened for acme serves globex to globex’s key), a plain port that switches to h2c (101) and then answers 403 over HTTP/2 (Apache with Protocols h2 h2c http/1.1)',
    choices: {
      schemeCaseInsensitive: false,
      crossTenantKey: 'insufficient_permissions',
      sniMustMatchHost: false,
      plainHttp: 'h2c-switch-then-403',
    },
    shownBy: (keys) => [
      {
        what: '`bearer` in lower case',
        request: { host: ACME, headers: [['Authorization', `bearer ${keys.acmeLiveFull}`]] },
        answer: { status: 401, code: 'invalid_api_key' },
      },
      {
        what: "globex's key on acme's host",
        request: { host: ACME, headers: [...JSON_HEADERS, bearer(keys.globexLiveFull)] },
        answer: { status: 403, code: 'insufficient_permissions' },
      },
      {
        what: "SNI acme, Host globex, globex's key",
        request: {
          servername: ACME,
          host: 'globex.api.localhost',
          headers: [...JSON_HEADERS, bearer(keys.globexLiveFull)],
        },
        answer: { status: 200, code: undefined },
      },
      {
        what: 'plain HTTP without Upgrade (the switch itself: tests/conformance/requests/h2c-upgrade.test.ts)',
        request: { host: ACME, plain: true },
        answer: { status: 403, code: 'https_required' },
      },
    ],
    warnings: [
      'AUTH-SCHEME-CASE-INSENSITIVE',
      'TENANT-CROSS-KEY-INDISTINGUISHABLE',
      'TENANT-SNI-HOST-MISMATCH-421',
      'TRANSPORT-PLAIN-HTTP-H2C-NOT-SWITCHED',
    ],
  },
  {
    name: 'what the spec leaves to the deployment: 403 to two Authorization headers (a WAF; the spec names no status), and a lenient Bearer parser (a tab, parameters, a second token let through: an HTTP-level deviation, the key is there whole)',
    choices: { duplicateAuthorization: 'forbidden', bearerSyntax: 'lenient' },
    shownBy: (keys) => [
      {
        what: 'two Authorization headers',
        request: { host: ACME, headers: [bearer(keys.acmeLiveFull), bearer(keys.acmeLiveFull)] },
        answer: { status: 403, code: 'request_blocked' },
      },
      {
        what: 'a tab after Bearer',
        request: {
          host: ACME,
          headers: [...JSON_HEADERS, ['Authorization', `Bearer\t${keys.acmeLiveFull}`]],
        },
        answer: { status: 200, code: undefined },
      },
      {
        what: 'the key cut in two by a space',
        request: {
          host: ACME,
          headers: [
            ...JSON_HEADERS,
            ['Authorization', `Bearer ${keys.acmeLiveFull.slice(0, 10)} ${keys.acmeLiveFull.slice(10)}`],
          ],
        },
        answer: { status: 401, code: 'invalid_api_key' },
      },
    ],
    warnings: ['AUTH-BEARER-SYNTAX-REJECTED'],
  },
  {
    name: '200s kept out of shared caches by Vary: Authorization, not no-store (CACHE-SERVED-NOT-SHARED passes, ERROR-NO-STORE advises), with an ETag per tenant and If-None-Match answered 304 only after authentication',
    choices: { servedCaching: 'vary-authorization', validators: 'per-tenant-etag' },
    shownBy: (keys) => [
      {
        what: 'a served request',
        request: { host: ACME, headers: [...JSON_HEADERS, bearer(keys.acmeLiveFull)] },
        answer: { status: 200, code: undefined, cacheControl: 'max-age=60', vary: 'Authorization' },
      },
      {
        what: 'a valid key with If-None-Match: * (its copy is current)',
        request: {
          host: ACME,
          headers: [...JSON_HEADERS, bearer(keys.acmeLiveFull), ['If-None-Match', '*']],
        },
        answer: { status: 304, code: undefined },
      },
      {
        what: 'no key with If-None-Match: * (refused before the validator is looked at)',
        request: { host: ACME, headers: [...JSON_HEADERS, ['If-None-Match', '*']] },
        answer: { status: 401, code: 'missing_authorization_header' },
      },
    ],
    warnings: ['ERROR-NO-STORE'],
  },
  {
    name: 'Content-Type: application/json required before authentication (spec §5 Scheme 3)',
    choices: { requireJsonContentType: true },
    shownBy: (keys) => [
      {
        what: 'no Content-Type',
        request: { host: ACME, headers: [['Accept', 'application/json'], bearer(keys.acmeLiveFull)] },
        answer: { status: 415, code: 'unsupported_media_type' },
      },
    ],
    warnings: [],
  },
  {
    name: 'a certificate naming each tenant host, no wildcard: a host of no tenant fails the TLS name check',
    choices: { certificate: 'tenant-names' },
    shownBy: (keys) => [
      {
        what: 'a host of no tenant',
        request: { host: 'initech.api.localhost', headers: [...JSON_HEADERS, bearer(keys.acmeLiveFull)] },
        answer: { failure: 'ERR_TLS_CERT_ALTNAME_INVALID' },
      },
    ],
    warnings: [],
  },
];

/** Every variant started before the file's tests and checked by the suite in one batch. */
const batch = batchOfDeployments();
const deployed = VARIANTS.map((variant, index) =>
  batch.add(`variant-${index + 1}`, async () => {
    const server = await startIndependentServer(variant.choices);
    return { server, target: await writeIndependentTarget(server), close: () => server.close() };
  }),
);

describe('each other correct choice of the independent implementation is CONFORMANT', () => {
  VARIANTS.forEach((variant, index) => {
    test(variant.name, async () => {
      const { server, run } = deployed[index]?.() ?? assert.fail(`no deployment of ${variant.name}`);
      for (const { what, request, answer } of variant.shownBy(server.keys)) {
        const { plain, ...sent } = request;
        const shown = await (
          plain
            ? probe({ ...sent, port: server.plainHttpPort ?? 0 })
            : probe({ ...sent, port: server.port, ca: server.caPem })
        ).then(
          // The caching fields are compared only where the variant is about them.
          ({ status, code, cacheControl, vary }) =>
            'cacheControl' in answer ? { status, code, cacheControl, vary } : { status, code },
          (error: NodeJS.ErrnoException) => ({ failure: error.code ?? error.message }),
        );
        assert.deepEqual(shown, answer, what);
      }
      assertConformant(run, variant.warnings);
    });
  });
});
