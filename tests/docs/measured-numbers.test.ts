// The numbers the docs give of a full run (requests per protocol, the time at `--max-rps 4`) are
// the benchmark's: bench/run-requests.ts measures them and writes the sentence the docs quote into
// bench/run-requests-results.md; the docs must hold that sentence as written there.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../support/conformance-run.ts';
import { requestsByProtocol } from '../../bench/run-requests.ts';

const SENTENCE =
  /A full run against the reference sends \d+ requests \(\d+ over HTTP\/1\.1, \d+ over HTTP\/2\); at `--max-rps 4` it takes [\d.]+ s\./g;

/** The page's text with its line breaks and runs of spaces as one space, as a reader reads it. */
function flowing(file: string): string {
  return readFileSync(join(REPO_ROOT, file), 'utf8').replace(/\s+/g, ' ');
}

test("the docs' numbers of a full run are the benchmark's, as its results file states them", () => {
  const measured = flowing('bench/run-requests-results.md').match(SENTENCE);
  assert.equal(measured?.length, 1, 'bench/run-requests-results.md states the numbers once');
  const [sentence = ''] = measured ?? [];
  // The unpaced run's total is the sum of its protocols'.
  const [total, http1, http2] = (
    /sends (\d+) requests \((\d+) over HTTP\/1\.1, (\d+) over/.exec(sentence) ?? []
  )
    .slice(1)
    .map(Number);
  assert.equal(total, (http1 ?? 0) + (http2 ?? 0), sentence);
  const quoted = flowing('docs/production-deployments.md').match(SENTENCE) ?? [];
  assert.ok(quoted.length > 0, 'docs/production-deployments.md quotes the numbers');
  for (const each of quoted) assert.equal(each, sentence);
});

test('a HAR is counted by the protocol each request went over', () => {
  const entry = (httpVersion: string): unknown => ({ request: { httpVersion } });
  const har = { log: { entries: [entry('HTTP/1.1'), entry('HTTP/2'), entry('HTTP/1.1')] } };
  assert.deepEqual(requestsByProtocol(JSON.stringify(har)), { 'HTTP/1.1': 2, 'HTTP/2': 1 });
  assert.deepEqual(requestsByProtocol(JSON.stringify({ log: { entries: [] } })), {});
});
