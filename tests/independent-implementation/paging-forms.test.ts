// The next-page forms of public APIs (paging-forms.ts), each a deployment the suite has not seen:
// - Google's nextPageToken, Stripe's starting_after/has_more, JSON:API's page[after], offset +
//   limit + total, and a Link rel="next" with an absolute URL of the same origin: CONFORMANT, and
//   with another tenant's customer on page 2, NOT CONFORMANT by TENANT-OWN-DATA-ONLY (the suite
//   followed the form to page 2);
// - a next page on another origin, or in a form the suite does not know (hasMore + continuation):
//   the list is cut — INCOMPLETE under strict, never CONFORMANT, even when page 2 leaks — the
//   scope names the form, and nothing is ever sent to the other origin.
// A direct request shows each shape; the suite checks every deployment of the file in one batch
// (tests/support/batched-runs.ts), each a run of its own over HTTP/1.1, strict for the cut lists.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ConformanceRun } from '../support/conformance-run.ts';
import { batchOfDeployments } from '../support/batched-runs.ts';
import { writeIndependentTarget, type WrittenTarget } from './independent-target.ts';
import { OTHER_ORIGIN_HOST, type PagingForm } from './paging-forms.ts';
import { assertConformant, assertNoKeyInReports, assertNotConformant, probe } from './run-support.ts';
import { startIndependentServer, type IndependentServer } from './server.ts';

const ACME = 'acme.api.localhost';

/** GET `path` as acme, with its live full-access key: status and body. */
async function acmeGet(server: IndependentServer, path: string) {
  const answer = await probe({
    port: server.port,
    ca: server.caPem,
    host: ACME,
    path,
    headers: [['Authorization', `Bearer ${server.keys.acmeLiveFull}`]],
  });
  return { ...answer, text: answer.body };
}

const batch = batchOfDeployments();

/** The implementation paged by `form` (`leak`: page 2 holds globex's first customer) for `body`. */
function withForm(
  form: PagingForm,
  leak: boolean,
  body: (deployed: () => { server: IndependentServer; run: ConformanceRun; target: WrittenTarget }) => void,
  profile?: 'strict',
) {
  const deployed = batch.add(
    `${form}${leak ? '-leaking' : ''}`,
    async () => {
      const server = await startIndependentServer({ customerList: form, pagedLeakFromPage2: leak });
      return { server, target: await writeIndependentTarget(server), close: () => server.close() };
    },
    profile ? { profile } : {},
  );
  describe(`${form}${leak ? ', leaking from page 2' : ''}`, () => body(deployed));
}

/** Each followed form: where page 2 is, as a direct request reaches it. */
const FOLLOWED: readonly (readonly [PagingForm, (page1: string) => string])[] = [
  [
    'paged-page-token',
    (page1) => `/v1/customers?pageToken=${(JSON.parse(page1) as { nextPageToken: string }).nextPageToken}`,
  ],
  [
    'paged-starting-after',
    (page1) =>
      `/v1/customers?starting_after=${(JSON.parse(page1) as { data: { id: string }[] }).data[0]?.id ?? ''}`,
  ],
  [
    'paged-page-after',
    (page1) =>
      `/v1/customers?page%5Bafter%5D=${(JSON.parse(page1) as { meta: { page: { after: string } } }).meta.page.after}`,
  ],
  ['paged-offset', () => '/v1/customers?offset=1&limit=1'],
  ['paged-link-absolute', () => '/v1/customers?page=2'],
];

for (const [form, secondPage] of FOLLOWED) {
  withForm(form, false, (deployed) => {
    test('page 1 names page 2 in its form, and page 2 holds acme’s second customer alone', async () => {
      const first = await acmeGet(deployed().server, '/v1/customers');
      assert.equal(first.status, 200, first.text);
      const second = await acmeGet(deployed().server, secondPage(first.text));
      assert.equal(second.status, 200, second.text);
      assert.match(second.text, /Mesa Anvil Works/);
      assert.doesNotMatch(second.text, /Cypress Creek/);
    });

    test('CONFORMANT, every rule passed, no key in any report', () => {
      const { run, target } = deployed();
      assertConformant(run);
      assertNoKeyInReports(run, target.env);
    });
  });

  withForm(form, true, (deployed) => {
    test('NOT CONFORMANT by TENANT-OWN-DATA-ONLY: the leak on page 2 is found', async () => {
      const second = await acmeGet(
        deployed().server,
        secondPage((await acmeGet(deployed().server, '/v1/customers')).text),
      );
      assert.match(second.text, /Cypress Creek/, 'the defect is there');
      const { run } = deployed();
      assertNotConformant(run, { 'TENANT-OWN-DATA-ONLY': 'fail' });
    });
  });
}

const CUT: readonly (readonly [PagingForm, RegExp])[] = [
  [
    'paged-link-other-origin',
    /Link rel="next" header names a page on another origin \(https:\/\/pages-cdn\.localhost/,
  ],
  ['paged-more-unknown', /"hasMore": true, but names its next page in no form the suite follows/],
];

for (const [form, named] of CUT)
  withForm(
    form,
    true,
    (deployed) => {
      test('the list is cut, naming the form: INCOMPLETE under strict though page 2 leaks, never CONFORMANT; nothing sent to another origin', () => {
        const { run, target } = deployed();
        assert.equal(run.report?.verdict, 'INCOMPLETE', run.stdout);
        const cut = run.report?.scope?.listsCut ?? [];
        assert.ok(
          cut.some((sentence) => named.test(sentence)),
          JSON.stringify(cut),
        );
        assert.ok(cut.every((sentence) => run.report?.scope?.partial.includes(sentence)));
        assert.match(run.stdout, /(a list|lists) cut/);
        const elsewhere = deployed().server.received.filter((request) =>
          request.rawHeaders.some((value) => value.includes(OTHER_ORIGIN_HOST)),
        );
        assert.deepEqual(elsewhere, [], 'no request of the run went to the other origin');
        assertNoKeyInReports(run, target.env);
      });
    },
    'strict',
  );
