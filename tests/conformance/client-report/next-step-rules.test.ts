// The client rules about what a client does next (conformance/client-report/history-checks.ts),
// end to end: each client of next-step-clients.ts runs against the mock with its behaviour, alone
// in the journal, and the client report flags exactly the rules it is caught by — none for a
// correct one. The checks themselves on hand-made histories: history-checks.test.ts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startReferenceMock, type ReferenceMock } from '../../../library/mock.ts';
import { NEXT_STEP_CLIENTS } from './next-step-clients.ts';

describe('what a client does when the API says no', () => {
  let mock: ReferenceMock;
  before(async () => {
    mock = await startReferenceMock();
  });
  after(() => mock.close());

  for (const client of NEXT_STEP_CLIENTS) {
    const expected = client.caughtBy.length === 0 ? 'no rule' : client.caughtBy.join(', ');
    test(`${client.userAgent}: ${expected}`, async () => {
      await mock.reset();
      const key = await mock.mintKey({ tenant: 'acme', access: 'read_only' });
      await mock.use(...client.behaviours(key.id));
      await client.run(mock, key.secret);
      const report = await mock.clientReport();
      const judged = report.clients.filter((judgedClient) => judgedClient.userAgent === client.userAgent);
      assert.equal(judged.length, 1, JSON.stringify(report.clients.map((c) => c.userAgent)));
      const flagged = judged[0]?.rules.filter(
        (rule) => rule.verdict === 'fail' || rule.verdict === 'warning',
      );
      assert.deepEqual(
        flagged?.map((rule) => rule.id).sort(),
        [...client.caughtBy].sort(),
        JSON.stringify(flagged),
      );
      // The rule was read, not skipped: a correct client's history showed what it applies to.
      const ruleIds = new Set<string>(NEXT_STEP_CLIENTS.flatMap((other) => other.caughtBy));
      const evaluated = judged[0]?.rules.filter(
        (rule) => ruleIds.has(rule.id) && rule.verdict !== 'not-evaluated',
      );
      assert.ok((evaluated?.length ?? 0) >= 1, 'at least one of these rules applied to the client');
      assert.ok(!JSON.stringify(report).includes(key.secret), 'no key in the report');
    });
  }
});
