// The embedded database's bytea codec (registry/database/bytea.ts): its hex text is PGlite's own
// for any bytes and reads back to them; and through a real embedded database, a bytea parameter
// (sent as its bytes) and each element of a bytea[] parameter (sent as text) are read by the
// database as exactly the bytes sent (its own length and SHA-256) and answered back unchanged.
import { createHash } from 'node:crypto';
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { types } from '@electric-sql/pglite';
import { BYTEA, byteaArrayToText, byteaFromText, byteaToText } from '../../../registry/database/bytea.ts';
import { openBackend, type OpenedBackend } from '../support/backends.ts';

const pgliteOwn = types.serializers[BYTEA];
const bytes = fc.uint8Array({ maxLength: 2048 });

describe('the embedded database bytea codec', () => {
  test("writes PGlite's own text for any bytes, and reads the bytes back from it", () => {
    assert.ok(pgliteOwn, "PGlite's own bytea serializer");
    fc.assert(
      fc.property(bytes, fc.nat(16), (value, offset) => {
        // A view into a larger buffer (as a Buffer of Node's pool is): only the view's bytes count.
        const backing = new Uint8Array(value.length + offset + 3);
        backing.set(value, offset);
        const view = backing.subarray(offset, offset + value.length);
        assert.equal(byteaToText(view), pgliteOwn(view));
        assert.deepEqual(new Uint8Array(byteaFromText(byteaToText(view))), value);
      }),
    );
  });

  test("refuses what PGlite's own codec refuses, and a result not in hex form", () => {
    assert.throws(() => byteaToText('text'), /Invalid input for bytea type/);
    assert.throws(() => byteaArrayToText('text'), /Invalid input for bytea\[\] type/);
    assert.throws(() => byteaFromText('abc'), /bytea_output = hex/);
  });

  let opened: OpenedBackend | undefined;
  after(() => opened?.close());

  test('the database reads the bytes sent and answers them back unchanged', async () => {
    opened = await openBackend('embedded', false);
    const db = opened.db;
    await fc.assert(
      fc.asyncProperty(bytes, async (value) => {
        const sent = Buffer.from(value);
        const [row] = await db.query<{ size: number; digest: Uint8Array; back: Uint8Array }>(
          'SELECT length($1::bytea) AS size, sha256($1::bytea) AS digest, $1::bytea AS back',
          [sent],
        );
        assert.ok(row);
        assert.equal(row.size, sent.length);
        assert.equal(
          Buffer.from(row.digest).toString('hex'),
          createHash('sha256').update(sent).digest('hex'),
        );
        assert.ok(Buffer.from(row.back).equals(sent));
      }),
      { numRuns: 40 },
    );
  });

  test('the database reads each element of a bytea[] parameter as the bytes sent', async () => {
    opened ??= await openBackend('embedded', false);
    const db = opened.db;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.option(bytes, { nil: null }), { maxLength: 5 }), async (values) => {
        const sent = values.map((value) => (value === null ? null : Buffer.from(value)));
        const rows = await db.query<{ digest: Uint8Array | null; back: Uint8Array | null }>(
          'SELECT sha256(x) AS digest, x AS back FROM unnest($1::bytea[]) WITH ORDINALITY AS u(x, n) ORDER BY n',
          [sent],
        );
        assert.equal(rows.length, sent.length);
        for (const [index, row] of rows.entries()) {
          const one = sent[index] ?? null;
          if (one === null) {
            assert.equal(row.back, null);
            continue;
          }
          assert.equal(
            Buffer.from(row.digest ?? []).toString('hex'),
            createHash('sha256').update(one).digest('hex'),
          );
          assert.ok(Buffer.from(row.back ?? []).equals(one));
        }
      }),
      { numRuns: 30 },
    );
  });
});
