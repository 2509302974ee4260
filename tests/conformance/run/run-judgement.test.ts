// The reporter's side of the run's checker without a Playwright run: what it judges by comes from
// the set-up test's attachments (the tenants' values and the declared hosts and key variables), so
// that a merge of shards — whose blobs keep no project option, hence no declared target — judges
// the whole history too, as each shard's own run does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { TestResult } from '@playwright/test/reporter';
import { RunJudgement } from '../../../conformance/run/run-judgement.ts';
import { ANNOTATION } from '../../../conformance/run/annotations.ts';
import { OutcomesByProtocol } from '../../../conformance/report/outcomes-by-protocol.ts';
import { KeyNamer } from '../../../conformance/redaction/shown-keys.ts';
import type { RecordedExchange } from '../../../conformance/requests/exchange-record.ts';

const ACME = 'https://acme.api.localhost:8443/v1';
const GLOBEX = 'https://globex.api.localhost:8443/v1';

function attachment(name: string, value: unknown): TestResult['attachments'][number] {
  return { name, contentType: 'application/json', body: Buffer.from(JSON.stringify(value)) };
}

const setUpResult = {
  attachments: [
    attachment(ANNOTATION.runTarget, {
      baseUrl: ACME,
      otherTenantBaseUrl: GLOBEX,
      credentialVariables: { fullAccess: 'ACME_FULL', otherTenant: 'GLOBEX_FULL' },
    }),
    attachment(ANNOTATION.tenantValues, {
      own: { label: 'acme', values: ['cus_acme_000001', 'Acme Anvils Ltd'] },
      other: { label: 'globex', values: ['cus_globex_000001', 'Globex Corp'] },
    }),
  ],
} as unknown as TestResult;

const advisoryProbe: RecordedExchange = {
  id: 'x-1',
  startedAt: new Date(0).toISOString(),
  durationMs: 1,
  request: {
    method: 'GET',
    url: `${ACME}/customers`,
    headers: [
      { name: 'Host', value: 'acme.api.localhost:8443' },
      { name: 'Authorization', value: 'Bearer $GLOBEX_FULL' },
    ],
  },
  response: {
    status: 200,
    headers: [{ name: 'content-type', value: 'application/json' }],
    body: '{"customers":[{"id":"cus_acme_000001","name":"Acme Anvils Ltd"}]}',
  },
};

test('a merge, with no declared target of its own, judges by what the set-up test declared', () => {
  const judgement = new RunJudgement();
  judgement.learned(setUpResult, new KeyNamer([]));
  const outcomes = new OutcomesByProtocol();
  const errors: string[] = [];
  judgement.judge(
    [{ madeBy: 'TENANT-CROSS-KEY-INDISTINGUISHABLE', exchange: advisoryProbe }],
    undefined,
    outcomes,
    new Set(['TENANT-CROSS-KEY-REJECTED']),
    (message) => errors.push(message),
  );
  assert.deepEqual(errors, []);
  const failed = outcomes.byRule().get('TENANT-CROSS-KEY-REJECTED');
  assert.equal(failed?.[0]?.status, 'failed');
  assert.match(failed?.[0]?.failure?.message ?? '', /sent by TENANT-CROSS-KEY-INDISTINGUISHABLE/);
});

test('without what the set-up test declared, nothing is judged (and nothing invented)', () => {
  const judgement = new RunJudgement();
  judgement.learned({ attachments: [setUpResult.attachments[1]] } as unknown as TestResult, new KeyNamer([]));
  const outcomes = new OutcomesByProtocol();
  judgement.judge(
    [{ madeBy: 'TENANT-CROSS-KEY-INDISTINGUISHABLE', exchange: advisoryProbe }],
    undefined,
    outcomes,
    new Set(['TENANT-CROSS-KEY-REJECTED']),
    () => {},
  );
  assert.equal(outcomes.byRule().size, 0);
});
