// A run's records made in-process through the suite's own pieces (clients' exchange shape, the
// KeyNamer, Checks, buildReport), with every outcome a rule can have: the report renderers and
// the browser test read it without running the suite.
import { Checks, ConformanceFailure } from '../../../conformance/judging/checks.ts';
import { startRequest, type Exchange } from '../../../conformance/requests/exchange.ts';
import { recordExchange } from '../../../conformance/requests/exchange-record.ts';
import { buildReport } from '../../../conformance/report/build-report.ts';
import { scopeOf } from '../../../conformance/report/scope.ts';
import type { RunExchange } from '../../../conformance/report/har.ts';
import { retriesByRule, trafficOf } from '../../../conformance/report/traffic-summary.ts';
import type { TestOutcome } from '../../../conformance/report/verdict.ts';
import { RULES } from '../../../conformance/catalog/rules.ts';
import { KeyNamer } from '../../../conformance/redaction/shown-keys.ts';
import type { ConformanceReport, TlsEvidence } from '../../../schemas/generated/conformance-report.ts';
import { SAMPLE_FAILING_RULE } from '../../support/sample-failure.ts';

/** Made-up keys under the variables a staging target file would name. */
export const SAMPLE_KEYS = {
  STAGING_FULL_ACCESS_KEY: 'mbk_prod_Sample0FullAccessKey0000000000000',
  STAGING_OTHER_TENANT_KEY: 'mbk_prod_Sample0OtherTenantKey00000000000',
} as const;
const FULL = SAMPLE_KEYS.STAGING_FULL_ACCESS_KEY;
const BASE = 'https://acme.api.staging.localhost:8443/v1';
const CUSTOMERS = `{"object":"list","data":[{"id":"cus_acme_001","object":"customer","name":"Ada Lovelace","email":"ada@acme.example"}]}`;

export interface SampleRun {
  report: ConformanceReport;
  exchanges: RunExchange[];
}

function answered(
  headers: [string, string][],
  status: number,
  body: string,
  note?: string,
  answerHeaders: Record<string, string> = { 'content-type': 'application/json', 'cache-control': 'no-store' },
): Exchange {
  return {
    kind: 'response',
    request: startRequest('GET', `${BASE}/customers`, headers, note === undefined ? {} : { note }),
    durationMs: 12,
    status,
    headers: answerHeaders,
    bodyText: body,
  };
}

/** The evidence Checks records for `exchange` when `assertion` fails. */
function failureOf(
  checks: Checks,
  assertion: () => void,
): { message: string; evidence: ConformanceFailure['evidence'] } {
  try {
    assertion();
  } catch (error) {
    if (error instanceof ConformanceFailure) return { message: error.message, evidence: error.evidence };
    throw error;
  }
  throw new Error('the sample assertion did not fail');
}

/** `namer` decides how keys are shown: pass one without keys to see what a leak would look like. */
export function sampleRun(
  namer = new KeyNamer(Object.entries(SAMPLE_KEYS).map(([variable, value]) => ({ variable, value }))),
): SampleRun {
  const checks = new Checks(namer);
  const accept: [string, string] = ['Accept', 'application/json'];
  // Made in the order the run lists them (exchanges.har sorts by start time: a later one made
  // first would take an earlier entry whenever the clock ticks between the two).
  const valid = answered([accept, ['Authorization', `Bearer ${FULL}`]], 200, CUSTOMERS);
  const quoted = answered(
    [accept, ['Authorization', `Bearer "${FULL}"`]],
    200,
    CUSTOMERS,
    'the key in double quotes',
  );
  const basic = answered(
    [accept, ['Authorization', `Basic ${Buffer.from(`${FULL}:`).toString('base64')}`]],
    401,
    '{"error":{"code":"missing_authorization_header","message":"Authorization header is required."}}',
    'Basic scheme',
  );
  const unknownKey: [string, string] = ['Authorization', 'Bearer mbk_prod_UnknownKeyUnknownKeyUnknownKey0'];
  // The gateway's 429 to the first try, not judged: the request was sent again a second later.
  const rateLimited: Exchange = {
    ...answered([accept, unknownKey], 429, '{"error":{"code":"rate_limited"}}', 'an unknown key', {
      'content-type': 'application/json',
      'retry-after': '1',
    }),
    retriedAfterMs: 1000,
  };
  const unknown: Exchange = {
    ...answered(
      [accept, unknownKey],
      400,
      '{"error":{"code":"invalid_api_key","message":"The provided API key is invalid."}}',
      'an unknown key',
    ),
    attempts: [{ id: rateLimited.request.id, status: 429, retriedAfterMs: 1000 }],
  };
  const outcomes = new Map<string, TestOutcome[]>(RULES.map((rule) => [rule.id, [{ status: 'passed' }]]));
  outcomes.set(SAMPLE_FAILING_RULE, [
    {
      status: 'failed',
      failure: failureOf(checks, () =>
        checks.rejected(quoted, 'A valid key in double quotes', { codes: ['invalid_api_key'], noDataOf: [] }),
      ),
    },
  ]);
  const warning = failureOf(checks, () => checks.status(unknown, [401], 'An unknown key'));
  outcomes.set('KEY-INVALID-401', [{ status: 'passed', warning: warning.message, failure: warning }]);
  outcomes.set('TENANT-CROSS-KEY-REJECTED', [
    { status: 'failed', error: 'apiRequestContext.get: read ECONNRESET' },
  ]);
  outcomes.set('ENV-SANDBOX-KEY-SERVED', [
    {
      status: 'skipped',
      notEvaluated:
        'not evaluated: the target file lacks sandboxBaseUrl. Add to it: "sandboxBaseUrl": "https://{sandbox host of your tenant}/v1"',
    },
  ]);
  const exchanges: RunExchange[] = [
    { madeBy: "learning the tenants' data (before the checks)", exchange: recordExchange(valid, namer) },
    { madeBy: SAMPLE_FAILING_RULE, exchange: recordExchange(quoted, namer) },
    { madeBy: 'AUTH-OTHER-SCHEME-REJECTED', exchange: recordExchange(basic, namer) },
    { madeBy: 'KEY-INVALID-401', exchange: recordExchange(rateLimited, namer) },
    { madeBy: 'KEY-INVALID-401', exchange: recordExchange(unknown, namer) },
  ];
  const report = buildReport(outcomes, {
    target: {
      name: 'staging',
      mode: 'file',
      baseUrl: BASE,
      caFile: '/etc/conformance/staging-ca.pem',
      hosts: { '*.localhost': '127.0.0.1' },
    },
    profile: 'default',
    startedAt: new Date('2026-03-02T09:15:00Z'),
    durationMs: 8_400,
    retriesByRule: retriesByRule(exchanges),
    traffic: trafficOf(exchanges, 4.1),
    tls: [SAMPLE_CERTIFICATE],
    scope: scopeOf({
      protocolsChecked: ['HTTP/1.1'],
      tls: [SAMPLE_CERTIFICATE],
      rulesSelected: RULES.length,
      rulesInCatalog: RULES.length,
    }),
  });
  return { report, exchanges };
}

/** The staging host's certificate, as the preflight records it: it offers HTTP/1.1 alone. */
const SAMPLE_CERTIFICATE: TlsEvidence = {
  field: 'baseUrl',
  host: 'acme.api.staging.localhost:8443',
  fingerprint256: Array.from({ length: 32 }, (_, index) =>
    (index * 7).toString(16).padStart(2, '0').toUpperCase().slice(-2),
  ).join(':'),
  subject: 'CN=*.api.localhost',
  issuer: 'CN=Staging CA',
  validFrom: '2026-01-01T00:00:00.000Z',
  validTo: '2027-01-01T00:00:00.000Z',
  alpn: { offered: ['http/1.1'], agreed: 'http/1.1' },
  protocols: ['HTTP/1.1'],
} satisfies TlsEvidence;
