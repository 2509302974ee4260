// The mock's certificates (library/mock-certificates.ts): made once per user and copied into a new
// certificate directory instead of made again; new ones only when asked; a cache directory that
// is not this user's own, closed to others, is never used. TMPDIR points at a directory of the
// test's own, so the test neither reads nor fills the machine's real cache.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { certificateDirectory, userCertificateCache } from '../../library/mock-certificates.ts';
import { startReferenceMock } from '../../library/mock.ts';
import { scratchDirectory } from '../support/scratch.ts';

describe("the mock's certificates", () => {
  let scratch: string;
  let savedTmpdir: string | undefined;

  before(() => {
    scratch = scratchDirectory('mock-certificates-test-');
    savedTmpdir = process.env.TMPDIR;
    mkdirSync(join(scratch, 'tmp'), { mode: 0o700 });
    process.env.TMPDIR = join(scratch, 'tmp');
  });

  after(() => {
    if (savedTmpdir === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = savedTmpdir;
    rmSync(scratch, { recursive: true, force: true });
  });

  test('a new certDir per start gets the user’s cached CA and certificate: no key is made again', async () => {
    const first = join(scratch, 'first');
    const second = join(scratch, 'second');
    await (await startReferenceMock({ certDir: first, httpPort: null })).close();
    await using mock = await startReferenceMock({ certDir: second, httpPort: null });
    const cache = userCertificateCache();
    assert.ok(cache !== undefined && cache.startsWith(join(scratch, 'tmp')), String(cache));
    const cachedCa = readFileSync(join(cache, 'ca.crt'), 'utf8');
    assert.equal(readFileSync(join(first, 'ca.crt'), 'utf8'), cachedCa);
    assert.equal(mock.ca, cachedCa);
    assert.equal(
      readFileSync(join(second, 'localhost.crt'), 'utf8'),
      readFileSync(join(cache, 'localhost.crt'), 'utf8'),
    );
    // The copies are as private as the cache: keys readable by their owner only.
    for (const name of ['ca.key', 'localhost.key'])
      assert.equal(statSync(join(second, name)).mode & 0o777, 0o600, name);
    assert.equal(statSync(second).mode & 0o077, 0);
    // And they serve: a request through the mock's fetch trusts them.
    const response = await mock.fetch(`${mock.baseUrl('acme')}/customers`);
    assert.equal(response.status, 401);
    await response.text();
  });

  test('freshCertificates makes a new CA, in certDir or in a temporary directory removed at close', async () => {
    const cachedCa = readFileSync(join(userCertificateCache() ?? '', 'ca.crt'), 'utf8');
    const own = join(scratch, 'fresh');
    await (await startReferenceMock({ certDir: own, freshCertificates: true, httpPort: null })).close();
    assert.notEqual(readFileSync(join(own, 'ca.crt'), 'utf8'), cachedCa);

    const mock = await startReferenceMock({ freshCertificates: true, httpPort: null });
    assert.notEqual(mock.ca, cachedCa);
    assert.ok(existsSync(mock.caFile));
    await mock.close();
    assert.ok(!existsSync(mock.caFile), 'the temporary directory is removed');
  });

  test('a cache directory open to others is not used: a temporary directory instead', async () => {
    const cache = userCertificateCache();
    assert.ok(cache);
    chmodSync(cache, 0o777);
    try {
      assert.equal(userCertificateCache(), undefined);
      const chosen = await certificateDirectory({ domain: 'localhost' });
      assert.equal(chosen.temporary, true);
      assert.notEqual(chosen.directory, cache);
      rmSync(chosen.directory, { recursive: true, force: true });
    } finally {
      chmodSync(cache, 0o700);
    }
  });
});
