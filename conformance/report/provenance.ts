// What pins a report to the kit that made it: the kit's source commit when it runs from a clone of
// its repository, and a digest of the rule catalog as run — so that two reports made by different
// code or different rules can be told apart, and a certificate says which rules it certifies.
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { realpathSync } from 'node:fs';
import type { ConformanceReport } from '../../schemas/generated/conformance-report.ts';
import { PACKAGE_ROOT } from '../../kit/package-root.ts';
import { RULES } from '../catalog/rules.ts';

/** SHA-256 of the JSON array of every rule's id, level and statement, in catalog order. */
export function catalogDigest(): NonNullable<ConformanceReport['catalog']> {
  return catalogDigestOf(RULES);
}

/** The digest of `rules` as a catalog (their ids, levels and statements, in order): `verify` checks a report's rules by it. */
export function catalogDigestOf(
  rules: readonly { id: string; level: string; statement: string }[],
): NonNullable<ConformanceReport['catalog']> {
  const listed = rules.map((rule) => ({ id: rule.id, level: rule.level, statement: rule.statement }));
  return { sha256: createHash('sha256').update(JSON.stringify(listed)).digest('hex'), rules: listed.length };
}

export type SourceCommit = Pick<ConformanceReport['suite'], 'commit' | 'sourceModified'>;

/**
 * The commit of the kit's own clone, and whether tracked files differ from it; nothing for an
 * installed package. The top level must be the kit's own root: an installed package inside a
 * project's repository must not report that project's commit.
 */
export function sourceCommit(root: string = PACKAGE_ROOT): SourceCommit {
  const git = (...args: string[]): string =>
    execFileSync('git', args, {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 5_000,
    }).trim();
  try {
    if (realpathSync(git('rev-parse', '--show-toplevel')) !== realpathSync(root)) return {};
    const commit = git('rev-parse', 'HEAD');
    const modified = git('status', '--porcelain', '--untracked-files=no') !== '';
    return { commit, sourceModified: modified };
  } catch {
    // No git, or not a clone: the version alone names the kit.
    return {};
  }
}

/**
 * What the human-readable reports show of the above, and of the certificates and options, as
 * (name, value) rows: the kit (with its commit), the catalog, the options, each host's certificate.
 */
export function provenanceFields(report: ConformanceReport): [string, string][] {
  const commit = report.suite.commit
    ? `, commit ${report.suite.commit}${report.suite.sourceModified ? ' with local changes' : ''}`
    : '';
  const options = report.options;
  return [
    ['Suite', `${report.suite.name} ${report.suite.version}${commit}`],
    ...(report.catalog
      ? [
          ['Rule catalog', `${report.catalog.rules} rules, sha256 ${report.catalog.sha256}`] as [
            string,
            string,
          ],
        ]
      : []),
    ...(options
      ? [
          [
            'Options',
            [
              `${options.selectedRules} rules selected`,
              `request timeout ${options.requestTimeoutSeconds} s`,
              `fail on incomplete: ${options.failOnIncomplete ? 'yes' : 'no'}`,
              ...(options.retries ? [`retries ${options.retries}`] : []),
              ...(options.maxRetries !== undefined ? [`max retries ${options.maxRetries}`] : []),
              ...(options.retryBudgetSeconds !== undefined
                ? [`retry budget ${options.retryBudgetSeconds} s`]
                : []),
              ...(options.maxRequestsPerSecond !== undefined
                ? [`max ${options.maxRequestsPerSecond} requests/s`]
                : []),
              ...(options.maxListPages !== undefined
                ? [
                    `lists followed to ${options.maxListPages} pages, ${options.maxListRecords ?? '?'} records`,
                  ]
                : []),
              ...(options.repeatEach !== undefined && options.repeatEach > 1
                ? [`repeat each ${options.repeatEach}`]
                : []),
            ].join(', '),
          ] as [string, string],
        ]
      : []),
    ...(report.tls ?? []).map((tls): [string, string] => [
      `Certificate of ${tls.field}`,
      `${tls.host}: SHA-256 ${tls.fingerprint256}; ${tls.subject}, issued by ${tls.issuer}, valid ${tls.validFrom} to ${tls.validTo}; ALPN ${tls.alpn.agreed ?? 'none agreed'} (offered ${tls.alpn.offered.join(', ')})`,
    ]),
  ];
}
