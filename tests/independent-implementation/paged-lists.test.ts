// Long customer lists in pages (customer-pages.ts: 300 customers a tenant, 50 a page), both ways:
// - correct, paged by `Link: <…?page=N>; rel="next"` and by `next_cursor` with `has_more`:
//   CONFORMANT, every rule passed (TENANT-OTHER-PAGE-CURSOR-NO-DATA among them: evaluated);
// - a list that never pages: CONFORMANT, TENANT-OTHER-PAGE-CURSOR-NO-DATA not applicable (no cursor);
// - paged by Link, but from the third page on the query runs on a global index and forgets the
//   tenant filter: NOT CONFORMANT by TENANT-OWN-DATA-ONLY alone (the suite follows the pages);
// - paged by an opaque cursor that carries tenant, environment and offset and is believed: NOT
//   CONFORMANT by TENANT-OTHER-PAGE-CURSOR-NO-DATA alone;
// - the leaking list behind a front that serves no page past the first: never CONFORMANT on the
//   first page alone (INCOMPLETE: the pages not served are named, the lists said cut).
// A direct request shows each shape; the suite checks every deployment of the file in one batch
// (tests/support/batched-runs.ts), each a run of its own over HTTP/1.1 (protocol is not the point).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { batchOfDeployments } from '../support/batched-runs.ts';
import { LONG_PAGE_SIZE } from './customer-pages.ts';
import { startGateFront, type GateFront } from './gate-front.ts';
import type { ServerChoices } from './choices.ts';
import { LONG_LIST_LENGTH } from './directory.ts';
import { writeIndependentTarget, type WrittenTarget } from './independent-target.ts';
import type { ConformanceRun } from '../support/conformance-run.ts';
import {
  assertConformant,
  assertNoKeyInReports,
  assertNotConformant,
  probe,
  type ProbeAnswer,
} from './run-support.ts';
import { startIndependentServer, type IndependentServer } from './server.ts';

const ACME = 'acme.api.localhost';
const GLOBEX = 'globex.api.localhost';

interface Page {
  customers: { id: string }[];
  has_more: boolean;
  next_cursor?: string;
}

/** GET `path` as `host`'s tenant, with its live full-access key. */
function listAs(server: IndependentServer, host: string, path = '/v1/customers'): Promise<ProbeAnswer> {
  const key = host === ACME ? server.keys.acmeLiveFull : server.keys.globexLiveFull;
  return probe({
    port: server.port,
    ca: server.caPem,
    host,
    path,
    headers: [['Authorization', `Bearer ${key}`]],
  });
}

function pageOf(answer: ProbeAnswer): Page {
  assert.equal(answer.status, 200, answer.body);
  return JSON.parse(answer.body) as Page;
}

const batch = batchOfDeployments();

/** The implementation with `choices`, checked in the file's batch, for the tests of `body`. */
function withServer(
  name: string,
  choices: Partial<ServerChoices>,
  body: (deployed: () => { server: IndependentServer; run: ConformanceRun; target: WrittenTarget }) => void,
) {
  const deployed = batch.add(choices.customerList ?? 'default', async () => {
    const server = await startIndependentServer(choices);
    return { server, target: await writeIndependentTarget(server), close: () => server.close() };
  });
  describe(name, () => body(deployed));
}

withServer(
  'a list paged by Link rel="next", 50 of 300 a page',
  { customerList: 'paged-link', longLists: true },
  (deployed) => {
    test('the first page holds 50 customers and names page 2 by a Link header; the last page names none', async () => {
      const first = await listAs(deployed().server, ACME);
      assert.equal(pageOf(first).customers.length, LONG_PAGE_SIZE);
      assert.equal(first.headers.link, '</v1/customers?page=2>; rel="next"');
      const last = await listAs(
        deployed().server,
        ACME,
        `/v1/customers?page=${LONG_LIST_LENGTH / LONG_PAGE_SIZE}`,
      );
      assert.equal(pageOf(last).has_more, false);
      assert.equal(last.headers.link, undefined);
    });

    test('CONFORMANT, every rule passed, no key in any report', () => {
      const { run, target } = deployed();
      assertConformant(run);
      assertNoKeyInReports(run, target.env);
    });
  },
);

withServer(
  'a list paged by next_cursor and has_more, the cursor bound to its tenant',
  { customerList: 'paged-cursor', longLists: true },
  (deployed) => {
    test("the first page names a cursor; globex's cursor on acme's host is refused", async () => {
      const globexFirst = pageOf(await listAs(deployed().server, GLOBEX));
      assert.equal(globexFirst.has_more, true);
      assert.ok(globexFirst.next_cursor);
      const replayed = await listAs(
        deployed().server,
        ACME,
        `/v1/customers?cursor=${globexFirst.next_cursor}`,
      );
      assert.deepEqual([replayed.status, replayed.code], [400, 'invalid_cursor']);
    });

    test('CONFORMANT, every rule passed', () => {
      const { run } = deployed();
      assertConformant(run);
    });
  },
);

withServer('a list that never pages: the whole list in one answer', { customerList: 'whole' }, (deployed) => {
  test('CONFORMANT; the page-cursor rule not applicable (there is no cursor to replay), never a pass', () => {
    const { run } = deployed();
    assertConformant(run, [], ['TENANT-OTHER-PAGE-CURSOR-NO-DATA']);
    const cursorRule = run.report?.rules.find((rule) => rule.id === 'TENANT-OTHER-PAGE-CURSOR-NO-DATA');
    assert.match(cursorRule?.message ?? '', /names no next page/);
    // Counted apart in the summary, with the HTTP/2 rules this HTTP/1.1-only shape cannot exercise.
    assert.equal(
      run.report?.summary.notApplicable,
      run.report?.rules.filter((rule) => rule.verdict === 'not-applicable').length,
    );
  });
});

withServer(
  'a list paged by Link whose query forgets the tenant filter from the third page on',
  { customerList: 'paged-link-global-from-page-3', longLists: true },
  (deployed) => {
    test("pages 1 and 2 hold acme's customers alone; page 3 holds globex's too", async () => {
      const ids = async (page: number) =>
        pageOf(await listAs(deployed().server, ACME, `/v1/customers?page=${page}`)).customers.map(
          (customer) => customer.id,
        );
      for (const page of [1, 2]) assert.ok((await ids(page)).every((id) => !id.includes('globex')));
      assert.ok((await ids(3)).some((id) => id.includes('globex')));
    });

    test('NOT CONFORMANT by TENANT-OWN-DATA-ONLY alone', () => {
      const { run } = deployed();
      assertNotConformant(run, { 'TENANT-OWN-DATA-ONLY': 'fail' });
      const result = run.report?.rules.find((rule) => rule.id === 'TENANT-OWN-DATA-ONLY');
      assert.match(result?.message ?? '', /page \d of its list/);
    });
  },
);

withServer(
  'a list paged by a cursor that carries tenant, environment and offset and is believed',
  { customerList: 'paged-cursor-trusted', longLists: true },
  (deployed) => {
    test("globex's cursor on acme's host, with acme's key, serves globex's customers", async () => {
      const cursor = pageOf(await listAs(deployed().server, GLOBEX)).next_cursor;
      const replayed = pageOf(await listAs(deployed().server, ACME, `/v1/customers?cursor=${cursor ?? ''}`));
      assert.ok(replayed.customers.every((customer) => customer.id.includes('globex')));
    });

    test('NOT CONFORMANT by TENANT-OTHER-PAGE-CURSOR-NO-DATA alone', () => {
      const { run } = deployed();
      assertNotConformant(run, { 'TENANT-OTHER-PAGE-CURSOR-NO-DATA': 'fail' });
      const result = run.report?.rules.find((rule) => rule.id === 'TENANT-OTHER-PAGE-CURSOR-NO-DATA');
      assert.match(result?.message ?? '', /next_cursor/);
    });
  },
);

describe('behind a front that does not serve the pages past the first, of a list that leaks from page 3', () => {
  let refused = 0;
  const deployed = batch.add('front-refusing-next-pages', async () => {
    const server = await startIndependentServer({
      customerList: 'paged-link-global-from-page-3',
      longLists: true,
    });
    const front: GateFront = await startGateFront({
      upstreamPort: server.port,
      upstreamCa: server.caPem,
      // A router that matches no query string: every next page the deployment names is a 404.
      gate: (request) => {
        if (!/[?&]page=/.test(request.url ?? '')) return { pass: true };
        refused += 1;
        return {
          answer: {
            status: 404,
            headers: { 'Content-Type': 'application/json' },
            body: '{"error":{"code":"not_found","message":"No route."}}',
          },
        };
      },
    });
    const target = await writeIndependentTarget({ ...server, port: front.port, caPem: front.caPem });
    return {
      target,
      close: async () => {
        await front.close();
        await server.close();
      },
    };
  });

  test('never CONFORMANT on the first page alone: TENANT-OWN-DATA-ONLY is an ERROR naming the page not served, and the run says which lists were cut', () => {
    const { run, target } = deployed();
    assert.ok(refused > 0, 'the front refused the next pages: the shape was met');
    assert.equal(run.report?.verdict, 'INCOMPLETE', run.stdout);
    const rule = run.report?.rules.find((candidate) => candidate.id === 'TENANT-OWN-DATA-ONLY');
    assert.equal(rule?.verdict, 'error', rule?.message);
    assert.match(rule?.message ?? '', /its page 2 \(.*\?page=2\), which it named as the next one, got a 404/);
    assert.match(JSON.stringify(run.report?.scope ?? {}), /was not followed to its end/);
    assertNoKeyInReports(run, target.env);
  });
});
