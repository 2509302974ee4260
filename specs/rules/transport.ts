// Spec §5 Scheme 4: HTTPS only; plain HTTP requests are rejected.
import { defineRule } from '../../conformance/run/rule-declaration.ts';
import { protocolsOfRun } from '../../conformance/requests/protocols.ts';
import { trustedCas } from '../../conformance/requests/ca-trust.ts';
import { Inconclusive } from '../../conformance/judging/failures.ts';
import { isRefusal, type Exchange } from '../../conformance/requests/exchange.ts';
import type { RuleContext } from '../../conformance/run/rule-context.ts';

/**
 * The headers by which a front tells an app "this request arrived over HTTPS": an app written to
 * sit behind a TLS-terminating proxy trusts one of them (Express and Fastify with trust proxy,
 * Django's SECURE_PROXY_SSL_HEADER, Rails, Spring's ForwardedHeaderFilter, ASP.NET Core's
 * ForwardedHeaders, …). On a plain listener reachable by clients, anyone can send them.
 */
const SAYS_HTTPS: readonly (readonly [string, string])[] = [
  ['X-Forwarded-Proto', 'https'],
  ['Forwarded', 'proto=https'],
  ['X-Forwarded-Ssl', 'on'],
  ['Front-End-Https', 'on'],
  ['X-Forwarded-Scheme', 'https'],
  ['X-Url-Scheme', 'https'],
  ['X-Forwarded-Port', '443'],
];

/**
 * An `Upgrade: h2c` request (RFC 7540 §3.2, removed from RFC 9113 but still served by some
 * stacks): the connection would switch to HTTP/2 and the answer follow over it. Its settings are
 * the defaults, empty (base64url of no bytes).
 */
const ASKS_H2C: readonly [string, string][] = [
  ['Connection', 'Upgrade, HTTP2-Settings'],
  ['Upgrade', 'h2c'],
  ['HTTP2-Settings', ''],
];

/** GET {plain-HTTP base}/customers without a key: a probe safe against any deployment. */
function plainHttpWithoutKey({ raw, target }: RuleContext): Promise<Exchange> {
  return raw.send({
    url: `${target.plainHttpBaseUrl}/customers`,
    headers: [['Accept', 'application/json']],
    refusalExpected: true,
  });
}

export const TRANSPORT_RULES = [
  // The preflight has already made this handshake before any rule ran (a certificate that does not
  // verify stops the run as SETUP ERROR); the rule makes it again so that the report shows it.
  defineRule({
    id: 'TRANSPORT-HTTPS-CERT',
    level: 'MUST',
    source: 'spec §5 Scheme 4; §4 base_url',
    statement: 'The tenant host is served over HTTPS with a certificate that is valid for that host name.',
    needs: [],
    reads: 'tls',
    check: async ({ target, check, settings }) => {
      // Loaded here, not with the module: the catalog (and the package's entry point) loads every
      // declaration, and reaching a URL brings TLS, HTTP/2 and X.509 with it.
      const { alpnOffered, reach } = await import('../../conformance/deployment/reach.ts');
      const problem = await reach(
        target.baseUrl,
        {
          hosts: target.hosts,
          ca: trustedCas(target.caFile),
          timeoutMs: settings.requestTimeoutMs,
          caFileSet: !!target.caFile,
          // What the run speaks, as the preflight offered it (an h2-only port ends an http/1.1 handshake).
          alpn: alpnOffered(protocolsOfRun(settings)),
        },
        'TLS',
      );
      if (problem && !problem.certificate)
        throw new Inconclusive(
          `TLS to ${target.baseUrl}: ${problem.problem}, so the certificate could not be checked.`,
        );
      if (problem) check.fail(`TLS to ${new URL(target.baseUrl).host}: ${problem.problem}. ${problem.fix}.`);
    },
  }),
  // "Not served" is taken as the decisions table puts it: refused, reset or answered 4xx (or 5xx),
  // with no data. A redirect is not a rejection, so it fails here as well as TRANSPORT-NO-REDIRECT.
  defineRule({
    id: 'TRANSPORT-PLAIN-HTTP-REJECTED',
    level: 'MUST',
    source: 'spec §5 Scheme 4',
    statement:
      'A plain-HTTP request is not served: it is refused, reset or answered with an error status (4xx), never redirected and never with data.',
    needs: [],
    reads: 'plain-http',
    check: async (context) => {
      const { check } = context;
      const exchange = await plainHttpWithoutKey(context);
      check.rejected(exchange, 'Plain HTTP without a key', {
        allowNoResponse: true,
      });
    },
  }),
  defineRule({
    id: 'TRANSPORT-PLAIN-HTTP-KEY-REJECTED',
    level: 'MUST',
    source: 'spec §5 Scheme 4',
    statement:
      'A plain-HTTP request that carries a valid key is not served either: refused, reset or answered with an error status.',
    needs: ['credentials.probe'],
    reads: 'plain-http',
    check: async ({ raw, check, target, bearer }) => {
      const exchange = await raw.send({
        url: `${target.plainHttpBaseUrl}/customers`,
        headers: [
          ['Accept', 'application/json'],
          ['Authorization', bearer('probe')],
        ],
        note: 'with the probe key',
        refusalExpected: true,
      });
      check.rejected(exchange, 'Plain HTTP with a valid key', {
        allowNoResponse: true,
      });
    },
  }),
  // One exchange per header, every one sent: a failure names each header the target trusted.
  defineRule({
    id: 'TRANSPORT-PLAIN-HTTP-FORWARDED-PROTO-REJECTED',
    level: 'MUST',
    source: 'spec §5 Scheme 4',
    statement:
      'A plain-HTTP request with a valid key and a header saying it arrived over HTTPS (X-Forwarded-Proto: https, Forwarded: proto=https, X-Forwarded-Ssl: on, Front-End-Https: on, X-Forwarded-Scheme: https, X-Url-Scheme: https, X-Forwarded-Port: 443) is not served: refused, reset or answered with an error status, never with data.',
    needs: ['credentials.probe'],
    reads: 'plain-http',
    check: async ({ raw, check, target, bearer }) => {
      await check.each(SAYS_HTTPS, async ([name, value]) => {
        const exchange = await raw.send({
          url: `${target.plainHttpBaseUrl}/customers`,
          headers: [
            ['Accept', 'application/json'],
            ['Authorization', bearer('probe')],
            [name, value],
          ],
          note: `with the probe key and ${name}: ${value}`,
          refusalExpected: true,
        });
        check.rejected(exchange, `Plain HTTP with a valid key and ${name}: ${value}`, {
          allowNoResponse: true,
        });
      });
    },
  }),
  // Every probe is sent, whatever the first answered. A switch (`101`) is not an answer: what the
  // server sends over HTTP/2 after it is (requests/h2c-upgrade.ts), and an error status there with
  // no data is a rejection. The switch itself is TRANSPORT-PLAIN-HTTP-H2C-NOT-SWITCHED's to judge.
  defineRule({
    id: 'TRANSPORT-PLAIN-HTTP-H2C-REJECTED',
    level: 'MUST',
    source: 'spec §5 Scheme 4; RFC 9113 §3',
    statement:
      'HTTP/2 without TLS (h2c) on the plain-HTTP port is not served, with or without a valid key: a request by prior knowledge and a request asking Upgrade: h2c are refused, reset or answered with an error status, never with data (a switch to HTTP/2, 101, followed by an error status or by no answer, serves nothing: it is a rejection). Every probe is sent.',
    needs: ['credentials.probe'],
    reads: 'plain-http',
    check: async ({ raw, check, target, bearer }) => {
      const url = `${target.plainHttpBaseUrl}/customers`;
      const keys = [
        ['without a key', []],
        ['with the probe key', [['Authorization', bearer('probe')]]],
      ] as const;
      const probes = keys.flatMap(([whose, key]) => [
        { whose, key, priorKnowledge: false },
        { whose, key, priorKnowledge: true },
      ]);
      await check.each(probes, async ({ whose, key, priorKnowledge }) => {
        const exchange = await raw.send({
          url,
          headers: [['Accept', 'application/json'], ...key, ...(priorKnowledge ? [] : ASKS_H2C)],
          ...(priorKnowledge ? { priorKnowledgeH2: true } : {}),
          note: priorKnowledge ? `HTTP/2 by prior knowledge (h2c), ${whose}` : `Upgrade: h2c, ${whose}`,
          refusalExpected: true,
        });
        const what = priorKnowledge
          ? `HTTP/2 without TLS by prior knowledge, ${whose}`
          : `Plain HTTP asking Upgrade: h2c, ${whose}`;
        check.rejected(exchange, what, { allowNoResponse: true });
      });
    },
  }),
  defineRule({
    id: 'TRANSPORT-PLAIN-HTTP-H2C-NOT-SWITCHED',
    level: 'ADVISORY',
    source: 'RFC 9113 §3.1 (the h2c upgrade is deprecated); h2c smuggling past fronts',
    statement:
      'The plain-HTTP port does not switch to HTTP/2 without TLS: a request asking Upgrade: h2c is not answered 101 Switching Protocols.',
    needs: [],
    reads: 'plain-http',
    check: async ({ raw, check, target }) => {
      const exchange = await raw.send({
        url: `${target.plainHttpBaseUrl}/customers`,
        headers: [['Accept', 'application/json'], ...ASKS_H2C],
        note: 'Upgrade: h2c, without a key',
        refusalExpected: true,
      });
      if (exchange.kind === 'failure' && !exchange.switchedProtocols && !isRefusal(exchange))
        check.noAnswer(exchange, 'Plain HTTP asking Upgrade: h2c');
      const switched =
        exchange.switchedProtocols ??
        (exchange.kind === 'response' && exchange.status === 101 ? '101' : undefined);
      if (switched)
        check.fail(
          `The plain-HTTP port switched to HTTP/2 without TLS (${switched}): it speaks h2c to anyone who asks, a protocol RFC 9113 deprecates and fronts do not inspect (h2c smuggling). ${check.describe(exchange)}`,
          exchange,
        );
    },
  }),
  defineRule({
    id: 'TRANSPORT-NO-REDIRECT',
    level: 'ADVISORY',
    source: 'OWASP ASVS 5.0, secure communication',
    statement:
      'Plain HTTP is not redirected to HTTPS, which would teach clients that sending a key over HTTP works.',
    needs: [],
    reads: 'plain-http',
    check: async (context) => {
      const { check } = context;
      const exchange = await plainHttpWithoutKey(context);
      // A refusal is no redirect; an exchange never sent says nothing.
      if (exchange.kind === 'failure' && !isRefusal(exchange)) check.noAnswer(exchange, 'Plain HTTP');
      if (exchange.kind === 'response' && exchange.status >= 300 && exchange.status < 400) {
        check.fail(
          `Plain HTTP was redirected (${exchange.status} to ${exchange.headers.location ?? 'nowhere'}). ${check.describe(exchange)}`,
          exchange,
        );
      }
    },
  }),
  defineRule({
    id: 'TRANSPORT-HSTS',
    level: 'ADVISORY',
    source: 'OWASP ASVS 5.0, browser security headers; RFC 6797',
    statement: 'HTTPS responses carry a Strict-Transport-Security header.',
    needs: [],
    reads: 'any-answer',
    check: async ({ api, check, customersUrl }) => {
      const exchange = await api.get(customersUrl());
      check.header(exchange, 'Strict-Transport-Security', /max-age=[1-9]\d*/i, 'An HTTPS response');
    },
  }),
];
