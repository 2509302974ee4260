// The bundles of the registry's publish tests, made once for both backends: the publishers' keys,
// a conformant run and others that differ in one thing, and the forgeries a publish must refuse
// (a verdict flipped, a subject named twice, a file cut short), re-sealed and re-signed with the
// vendor's own key as a forger with the kit's tools would (tests/support/forger.ts).
import { cpSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { reseal } from '../../support/forger.ts';
import { HTTP_RULES, MUST_RULES, keyPair, makeBundle } from '../support/bundles.ts';
import { scratchDirectory } from '../../support/scratch.ts';

export const vendor = keyPair();
export const other = keyPair();
export const stranger = keyPair();

export const conformant = makeBundle({ key: vendor.privateKey });
export const distinct = Array.from({ length: 8 }, (_, index) =>
  makeBundle({ key: vendor.privateKey, startedAt: new Date(Date.UTC(2026, 10, 1, index)) }),
);
export const failingHttp = makeBundle({ key: vendor.privateKey, failing: [HTTP_RULES[0] ?? ''] });
export const unsigned = makeBundle({});
export const byStranger = makeBundle({ key: stranger.privateKey });
export const byOtherPublisher = makeBundle({ key: other.privateKey });
export const forSecrets = makeBundle({ key: vendor.privateKey, startedAt: new Date('2026-10-01T00:00:00Z') });

export function copy(directory: string): string {
  const target = join(scratchDirectory('registry-forged-'), 'bundle');
  cpSync(directory, target, { recursive: true });
  return target;
}

/** A forged report: the verdict flipped, every digest and the signature made again with the vendor's key. */
export function forged(): string {
  const directory = copy(makeBundle({ key: vendor.privateKey, failing: [MUST_RULES[0] ?? ''] }));
  const report = JSON.parse(readFileSync(join(directory, 'conformance.json'), 'utf8')) as { verdict: string };
  report.verdict = 'CONFORMANT';
  writeFileSync(join(directory, 'conformance.json'), JSON.stringify(report));
  reseal(directory, vendor.privateKey);
  return directory;
}

/** The statement names conformance.json twice; re-signed and re-digested: only the subject check refuses it. */
export function duplicatedSubject(): string {
  const directory = copy(conformant);
  const statement = JSON.parse(readFileSync(join(directory, 'statement.json'), 'utf8')) as {
    subject: unknown[];
  };
  statement.subject.push(statement.subject[0]);
  writeFileSync(join(directory, 'statement.json'), `${JSON.stringify(statement, null, 2)}\n`);
  reseal(directory, vendor.privateKey);
  return directory;
}

export function truncated(): string {
  const directory = copy(conformant);
  truncateSync(join(directory, 'conformance.json'), 100);
  return directory;
}
