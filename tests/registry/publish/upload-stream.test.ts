// The streamed reading of an upload judges every body as reading it whole would — JSON.parse of the
// text, each file's base64 checked by canonicalBase64 — except a member named twice, which it
// refuses (JSON.parse takes the last): the same verdict (accepted or refused) and,
// when accepted, the same deployment, version, flag and files, however the body is cut into pieces
// on the wire (fast-check over bodies, spellings and cuts). Secrets and the size bound are found
// across pieces too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { canonicalBase64 } from '../../../conformance/attestation/dsse.ts';
import { Base64Decoder } from '../../../registry/publish/base64-stream.ts';
import { BundleTooLarge, DirectorySink } from '../../../registry/publish/upload-files.ts';
import { UploadStreamParser } from '../../../registry/publish/upload-stream.ts';
import {
  DEPLOYMENT_NAME,
  FILE_NAME,
  MAX_FILES,
  uploadOf,
  UploadError,
  VERSION_LABEL,
} from '../../../registry/publish/upload.ts';
import { scratchDirectory } from '../../support/scratch.ts';
import { keyPair, makeBundle, removeBundles } from '../support/bundles.ts';

interface Judged {
  deployment: string;
  version: string;
  targetMoved: boolean;
  checkedByRegistry: boolean;
  files: Record<string, string>; // name → hex
}

/** Reading the body whole: what the registry accepted before uploads streamed. */
function wholeReading(text: string): Judged | 'refused' {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return 'refused';
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return 'refused';
  const { deployment, version, files, targetMoved, checkedBy } = data as Record<string, unknown>;
  if (targetMoved !== undefined && typeof targetMoved !== 'boolean') return 'refused';
  if (checkedBy !== undefined && checkedBy !== 'registry') return 'refused';
  if (typeof deployment !== 'string' || !DEPLOYMENT_NAME.test(deployment)) return 'refused';
  if (typeof version !== 'string' || !VERSION_LABEL.test(version)) return 'refused';
  if (typeof files !== 'object' || files === null || Array.isArray(files)) return 'refused';
  const entries = Object.entries(files as Record<string, unknown>);
  if (entries.length > MAX_FILES) return 'refused';
  const decoded: Record<string, string> = {};
  for (const [name, content] of entries) {
    if (!FILE_NAME.test(name) || typeof content !== 'string') return 'refused';
    const bytes = content === '' ? Buffer.alloc(0) : canonicalBase64(content);
    if (bytes === undefined) return 'refused';
    decoded[name] = bytes.toString('hex');
  }
  return {
    deployment,
    version,
    targetMoved: targetMoved === true,
    checkedByRegistry: checkedBy === 'registry',
    files: decoded,
  };
}

/** Reading it streamed, in the pieces given, into a directory; what was written, read back. */
function streamedReading(text: string, cuts: number[]): Judged | 'refused' {
  const directory = mkdtempSync(join(scratchDirectory('upload-stream-'), 'u-'));
  const sink = new DirectorySink(directory, 1 << 20, '');
  const parser = new UploadStreamParser(sink);
  const body = Buffer.from(text);
  const points = [...new Set(cuts.map((cut) => cut % (body.length + 1)))].sort((a, b) => a - b);
  try {
    let from = 0;
    for (const point of [...points, body.length]) {
      parser.write(body.subarray(from, point));
      from = point;
    }
    const head = parser.end();
    const files: Record<string, string> = {};
    for (const file of sink.files())
      files[file.name] = readFileSync(join(directory, file.name)).toString('hex');
    return { ...head, files };
  } catch (error) {
    if (error instanceof UploadError) return 'refused';
    throw error;
  } finally {
    sink.abandon();
    rmSync(directory, { recursive: true, force: true });
  }
}

const fileName = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('SHA256SUMS', 'conformance.json', 'exchanges.har', 'badge.svg') },
  { weight: 1, arbitrary: fc.constantFrom('../x', '.hidden', 'a/b', 'é.txt', '') },
);
/** A file's content as sent: one of the three canonical encodings, or a spelling that is not. */
const content = fc
  .tuple(
    fc.uint8Array({ maxLength: 40 }),
    fc.constantFrom(
      'base64',
      'base64url',
      'base64url-padded',
      'escaped',
      'escaped',
      'mangled',
      'not-a-string',
    ),
    fc.nat(),
  )
  .map(([bytes, spelling, seed]): unknown => {
    const buffer = Buffer.from(bytes);
    const standard = buffer.toString('base64');
    switch (spelling) {
      case 'base64':
        return standard;
      case 'base64url':
        return buffer.toString('base64url');
      case 'base64url-padded':
        return buffer.toString('base64url').padEnd(standard.length, '=');
      case 'escaped':
        return { escaped: standard }; // its "/" written \/ or \u002f in the text
      case 'mangled': {
        if (standard.length === 0) return '=';
        const at = seed % standard.length;
        return `${standard.slice(0, at)}${'=-+_ \n"'[seed % 7]}${standard.slice(at + 1)}`;
      }
      default:
        return seed % 2 === 0 ? seed : null;
    }
  });
/** A member of the body: the known ones (valid or not; they come twice then) or one not known. */
const member = fc.oneof(
  fc.tuple(fc.constant('deployment'), fc.constantFrom<unknown>('acme-prod', 'Acme', 7, 'a-b')),
  fc.tuple(fc.constant('version'), fc.constantFrom<unknown>('1.2.0', '2.0.0-rc.1+b5', '', ['1'])),
  fc.tuple(fc.constant('files'), fc.dictionary(fileName, content, { maxKeys: 5 })),
  fc.tuple(fc.constant('files'), fc.constantFrom<unknown>([], 'x', null)),
  {
    weight: 4,
    arbitrary: fc.tuple(fc.constant('targetMoved'), fc.constantFrom<unknown>(true, false, true, 'yes')),
  },
  {
    weight: 2,
    arbitrary: fc.tuple(fc.constant('checkedBy'), fc.constantFrom<unknown>('registry', 'publisher', true)),
  },
  { weight: 4, arbitrary: fc.tuple(fc.constantFrom('comment', '__proto__'), fc.jsonValue({ maxDepth: 2 })) },
);

/** The body's text: the members in the order given (a name may come twice), spaced or not. */
function render(members: [string, unknown][], spaced: boolean, escapeSeed: number): string {
  const space = spaced ? '\n  ' : '';
  const value = (item: unknown): string => {
    if (item !== null && typeof item === 'object' && !Array.isArray(item)) {
      const entries = Object.entries(item as Record<string, unknown>);
      if (entries.length === 1 && entries[0]?.[0] === 'escaped' && typeof entries[0][1] === 'string')
        return JSON.stringify(entries[0][1]).replace(/\//g, escapeSeed % 2 === 0 ? '\\/' : '\\u002f');
      return `{${space}${entries.map(([key, inner]) => `${JSON.stringify(key)}:${spaced ? ' ' : ''}${value(inner)}`).join(`,${space}`)}}`;
    }
    return JSON.stringify(item);
  };
  return `{${space}${members.map(([key, item]) => `${JSON.stringify(key)}${spaced ? ' : ' : ':'}${value(item)}`).join(`,${space}`)}${space}}`;
}

test('a body read in pieces is judged as the whole body is, with the same files', () => {
  // The files of the body: mostly well sent, in every spelling, sometimes not.
  const goodFiles = fc.dictionary(
    fc.constantFrom('SHA256SUMS', 'conformance.json', 'exchanges.har'),
    content,
    {
      maxKeys: 3,
    },
  );
  const verdicts = { accepted: 0, refused: 0 };
  fc.assert(
    fc.property(
      goodFiles,
      fc.array(member, { maxLength: 3 }),
      fc.boolean(),
      fc.nat(),
      fc.array(fc.nat(), { maxLength: 8 }),
      // Mostly whole; sometimes cut short at any byte.
      fc.oneof({ weight: 5, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.nat() }),
      (files, members, spaced, escapeSeed, cuts, truncate) => {
        const required: [string, unknown][] = [
          ['deployment', 'acme-prod'],
          ['version', '1.0.0'],
          ['files', files],
        ];
        // The members drawn go anywhere among the required ones (a name twice: the last counts).
        const all = [...required];
        for (const [index, extra] of members.entries())
          all.splice((escapeSeed + index) % (all.length + 1), 0, extra);
        let text = render(all, spaced, escapeSeed);
        if (truncate !== undefined) text = text.slice(0, truncate % text.length);
        // A member named twice is refused: which one counts is where parsers differ.
        const twice = new Set(all.map(([name]) => name)).size < all.length;
        const whole = twice ? 'refused' : wholeReading(text);
        assert.deepEqual(streamedReading(text, cuts), whole, text);
        verdicts[whole === 'refused' ? 'refused' : 'accepted']++;
      },
    ),
    { numRuns: 400 },
  );
  // Both kinds of body were tried, in numbers: neither verdict is the property's whole story.
  assert.ok(verdicts.accepted >= 40 && verdicts.refused >= 40, JSON.stringify(verdicts));
});

test("a real bundle's upload, cut anywhere, gives back its files byte for byte", () => {
  const text = uploadOf(makeBundle({ key: keyPair().privateKey }), 'acme-prod', '1.0.0');
  const whole = wholeReading(text);
  assert.notEqual(whole, 'refused');
  fc.assert(
    fc.property(fc.array(fc.nat(), { maxLength: 20 }), (cuts) => {
      assert.deepEqual(streamedReading(text, cuts), whole);
    }),
    { numRuns: 30 },
  );
  removeBundles();
});

test('base64 decoded in pieces is accepted exactly when canonicalBase64 accepts it, with its bytes', () => {
  const text = fc.oneof(
    fc.uint8Array({ maxLength: 30 }).map((bytes) => Buffer.from(bytes).toString('base64')),
    fc.uint8Array({ maxLength: 30 }).map((bytes) => Buffer.from(bytes).toString('base64url')),
    fc.string({ unit: fc.constantFrom(...'AQgw+/-_=9z'), maxLength: 12 }),
  );
  fc.assert(
    fc.property(text, fc.array(fc.nat(), { maxLength: 5 }), (base64, cuts) => {
      const expected = base64 === '' ? Buffer.alloc(0) : canonicalBase64(base64);
      const points = [...new Set(cuts.map((cut) => cut % (base64.length + 1)))].sort((a, b) => a - b);
      let decoded: Buffer | undefined;
      try {
        const decoder = new Base64Decoder();
        const parts: Buffer[] = [];
        let from = 0;
        for (const point of [...points, base64.length]) {
          parts.push(decoder.write(base64.slice(from, point)));
          from = point;
        }
        parts.push(decoder.end());
        decoded = Buffer.concat(parts);
      } catch {
        decoded = undefined;
      }
      assert.deepEqual(decoded?.toString('hex'), expected?.toString('hex'), base64);
    }),
    { numRuns: 2000 },
  );
});

test('a secret cut in two by the pieces is found, and the size bound counts every piece', () => {
  const directory = scratchDirectory('upload-sink-');
  const token = `tacr_${'A'.repeat(43)}`;
  for (const at of [1, 10, 30, 47]) {
    const sink = new DirectorySink(directory, 1 << 20, '');
    sink.open('exchanges.har');
    sink.write(Buffer.from(`{"h":"${token.slice(0, at)}`));
    assert.equal(sink.secretIn, undefined);
    sink.write(Buffer.from(`${token.slice(at)}"}`));
    sink.close();
    assert.equal(sink.secretIn, 'exchanges.har');
  }
  const bounded = new DirectorySink(directory, 10, '');
  bounded.open('a.txt');
  bounded.write(Buffer.alloc(6));
  bounded.close();
  bounded.open('b.txt');
  assert.throws(() => bounded.write(Buffer.alloc(5)), BundleTooLarge);
  bounded.abandon();
});
