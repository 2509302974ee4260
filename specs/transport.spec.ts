// Spec §5 Scheme 4: HTTPS only; plain HTTP requests are rejected.
import { conformanceRule } from '../conformance/test.ts';
import { verifiedHandshake } from '../conformance/tls-probe.ts';

conformanceRule('TRANSPORT-HTTPS-CERT', async ({ target, check }) => {
  const result = await verifiedHandshake(target.baseUrl, target.hosts, target.caFile);
  if (!result.ok) {
    check.fail(
      `TLS to ${new URL(target.baseUrl).host} did not verify: ${result.error ?? 'not authorised'}. The certificate must be valid for the tenant host (if it comes from a private CA, set "caFile" in the target file).`,
    );
  }
});

// "Not served" is taken as the decisions table puts it: refused, reset or answered 4xx (or 5xx),
// with no data. A redirect is not a rejection, so it fails here as well as TRANSPORT-NO-REDIRECT.
conformanceRule('TRANSPORT-PLAIN-HTTP-REJECTED', async ({ raw, check, target, knowledge }) => {
  // No key is sent: this probe is safe against any deployment.
  const exchange = await raw.send({
    url: `${target.plainHttpBaseUrl}/customers`,
    headers: [['Accept', 'application/json']],
  });
  check.rejected(exchange, 'Plain HTTP without a key', {
    noDataOf: [knowledge.own, knowledge.other],
    allowNoResponse: true,
  });
});

conformanceRule(
  'TRANSPORT-PLAIN-HTTP-KEY-REJECTED',
  async ({ raw, check, target, knowledge, credential }) => {
    const exchange = await raw.send({
      url: `${target.plainHttpBaseUrl}/customers`,
      headers: [
        ['Accept', 'application/json'],
        ['Authorization', `Bearer ${credential('probe')}`],
      ],
      note: 'with the probe key',
    });
    check.rejected(exchange, 'Plain HTTP with a valid key', {
      noDataOf: [knowledge.own, knowledge.other],
      allowNoResponse: true,
    });
  },
);

conformanceRule('TRANSPORT-NO-REDIRECT', async ({ raw, check, target }) => {
  const exchange = await raw.send({
    url: `${target.plainHttpBaseUrl}/customers`,
    headers: [['Accept', 'application/json']],
  });
  if (exchange.kind === 'response' && exchange.status >= 300 && exchange.status < 400) {
    check.fail(
      `Plain HTTP was redirected (${exchange.status} to ${exchange.headers.location ?? 'nowhere'}). ${check.describe(exchange)}`,
      exchange,
    );
  }
});

conformanceRule('TRANSPORT-HSTS', async ({ api, check, customersUrl }) => {
  const exchange = await api.get(customersUrl());
  check.header(exchange, 'Strict-Transport-Security', /max-age=[1-9]\d*/i, 'An HTTPS response');
});
