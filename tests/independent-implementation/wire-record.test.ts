// What the suite records is what went over the wire. The implementation here sets a load
// balancer's sticky-session cookies (AWSALB, AWSALBCORS) on every answer and keeps every request
// it received, header line by header line. After a run over both protocols, the requests it
// received and the requests of the run's HAR are the same, field for field: no cookie rides on a
// request unless the HAR lists it, and every field the client added (User-Agent, Accept-Encoding,
// Host or :authority, Connection, …) is in the HAR, the preflight's requests included. Only the
// cookie rule sends cookies back, on purpose.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { OVER_OFFERED_PROTOCOLS, runConformance, type ConformanceRun } from '../support/conformance-run.ts';
import { KeyNamer } from '../../conformance/redaction/shown-keys.ts';
import { startIndependentServer, type IndependentServer, type ReceivedRequest } from './server.ts';
import { writeIndependentTarget, type WrittenTarget } from './independent-target.ts';
import { assertConformantOverBothProtocols } from '../support/protocol-verdicts.ts';
import { PREFLIGHT } from '../../conformance/report/har.ts';

interface HarRequest {
  method: string;
  url: string;
  httpVersion: string;
  headers: { name: string; value: string }[];
}
interface HarFile {
  log: {
    entries: {
      _rule: string;
      request: HarRequest;
      response: { status: number; headers: { name: string }[] };
    }[];
  };
}

/** A request as one line: method, path, version, then every field (lower-case name) sorted. */
function requestKey(
  method: string,
  path: string,
  version: string,
  fields: readonly [string, string][],
): string {
  const lines = fields.map(([name, value]) => `${name.toLowerCase()}: ${value}`).sort();
  return [`${method} ${path} ${version}`, ...lines].join('\n');
}

/** As the HAR records it: over HTTP/2 the first Host is the :authority, a further one a host field. */
function recordedKey({ method, url, httpVersion, headers }: HarRequest): string {
  const { pathname, search } = new URL(url.replace(/\$/g, '%24'));
  const path = decodeURIComponent(`${pathname}${search}`);
  return requestKey(
    method,
    path,
    httpVersion,
    headers.map(({ name, value }) => [name, value]),
  );
}

/** As the implementation received it, its key values shown the way the reports show them. */
function receivedKey(request: ReceivedRequest, namer: KeyNamer): string {
  const fields: [string, string][] = [];
  for (let index = 0; index + 1 < request.rawHeaders.length; index += 2) {
    const name = request.rawHeaders[index] ?? '';
    const value = namer.show(request.rawHeaders[index + 1] ?? '');
    if (name === ':authority') fields.push(['host', value]);
    else if (!name.startsWith(':')) fields.push([name, value]);
  }
  const version = request.httpVersion === '2.0' ? 'HTTP/2' : `HTTP/${request.httpVersion}`;
  return requestKey(request.method, decodeURIComponent(namer.show(request.url)), version, fields);
}

/** What is in `left` and not in `right`, counting repeats. */
function missingFrom(left: readonly string[], right: readonly string[]): string[] {
  const counts = new Map<string, number>();
  for (const key of right) counts.set(key, (counts.get(key) ?? 0) + 1);
  return left.filter((key) => {
    const count = counts.get(key) ?? 0;
    counts.set(key, count - 1);
    return count <= 0;
  });
}

describe('the HAR of a run is what the deployment received (sticky load-balancer cookies on every answer)', () => {
  let server: IndependentServer;
  let target: WrittenTarget;
  let run: ConformanceRun;

  before(async () => {
    server = await startIndependentServer({ cookies: 'sticky-balancer', http2: true });
    target = await writeIndependentTarget(server);
    run = await runConformance(['--target', target.file, '--profile', 'strict'], {
      ...target.env,
      ...OVER_OFFERED_PROTOCOLS,
    });
  });

  after(async () => {
    await server.close();
  });

  test('CONFORMANT over both protocols, every rule passed: the cookies are harmless', () => {
    assertConformantOverBothProtocols(run);
  });

  test('every request received is in the HAR with exactly its fields, and every answered request of the HAR was received', (t) => {
    const har = JSON.parse(readFileSync(join(run.reportDir, 'exchanges.har'), 'utf8')) as HarFile;
    const namer = new KeyNamer(Object.entries(target.env).map(([variable, value]) => ({ variable, value })));
    const answered = har.log.entries.filter((entry) => entry.response.status > 0);
    const setCookie = answered.filter((entry) =>
      entry.response.headers.some(({ name }) => name.toLowerCase() === 'set-cookie'),
    );
    assert.ok(setCookie.length > 20, `the answers set cookies (${setCookie.length} of ${answered.length})`);
    const recorded = answered.map((entry) => recordedKey(entry.request));
    // Every request received, the preflight's keyless GET to each declared URL among them: the
    // HAR names those as the preflight's (report/har.ts PREFLIGHT), and nothing is left out.
    const received = server.received.map((request) => receivedKey(request, namer));
    const preflight = answered.filter((entry) => entry._rule === PREFLIGHT);
    assert.ok(preflight.length > 0, "the preflight's requests are in the HAR");
    assert.ok(
      received.length >= recorded.length && recorded.length > 100,
      `${received.length} received, ${recorded.length} recorded`,
    );
    t.diagnostic(
      `${received.length} requests compared field for field (${preflight.length} of them the preflight's); ${setCookie.length} of ${answered.length} answers set cookies`,
    );
    assert.deepEqual(missingFrom(received, recorded), [], 'received, but not so in the HAR');
    assert.deepEqual(missingFrom(recorded, received), [], 'in the HAR, but not so received');
    // A cookie goes back only where a rule sends it on purpose: the cookie rule, twice per kind of
    // connection (HTTP/1.1 without ALPN, HTTP/1.1 with ALPN http/1.1 — a MUST's second pass — and HTTP/2).
    const withCookie = server.received.filter(({ rawHeaders }) =>
      rawHeaders.some((name, index) => index % 2 === 0 && name.toLowerCase() === 'cookie'),
    );
    const cookieRule = answered.filter(
      (entry) =>
        entry._rule.includes('AUTH-COOKIE-NOT-CREDENTIAL') &&
        entry.request.headers.some(({ name }) => name.toLowerCase() === 'cookie'),
    );
    assert.equal(withCookie.length, 6, 'only the cookie rule sent cookies back');
    assert.equal(cookieRule.length, withCookie.length, "each of them is the cookie rule's, in the HAR");
  });
});
