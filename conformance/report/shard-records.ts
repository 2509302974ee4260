// What each shard of a sharded run knew and the merge cannot: its target, kit, catalog, options,
// certificates and scope (the preflight ran in the shard, not in the merge). A shard's reporter
// leaves it beside its blob report (`blob/conformance-shard-1-of-3.json`); `merge` reads the
// ones gathered with the blobs, and the merged report carries them as `shards`, so that the
// bundle of a merged run certifies what every shard ran against.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ConformanceReport } from '../../schemas/generated/conformance-report.ts';
import { describeSchemaErrors, validatorFor } from '../../schemas/validators.ts';

export type ShardRecord = NonNullable<ConformanceReport['shards']>[number];

/** The settings of a run that can change its verdict (scope.settings). */
type ScopeSettings = NonNullable<NonNullable<ConformanceReport['scope']>['settings']>;

const RECORD_NAME = /^conformance-shard-(\d+)-of-(\d+)\.json$/;

export function shardRecordFile(shard: string): string {
  return `conformance-shard-${shard.replace('/', '-of-')}.json`;
}

export function shardRecordOf(report: ConformanceReport): ShardRecord {
  return {
    shard: report.shard ?? '1/1',
    target: report.target,
    suite: report.suite,
    ...(report.catalog ? { catalog: report.catalog } : {}),
    ...(report.options ? { options: report.options } : {}),
    ...(report.tls ? { tls: report.tls } : {}),
    ...(report.scope ? { scope: report.scope } : {}),
    startedAt: report.startedAt,
  };
}

/** The records in `folder`, in shard order; what is wrong with one is thrown as an Error naming it. */
export function readShardRecords(folder: string): ShardRecord[] {
  const validate = validatorFor<ShardRecord>('conformance-report.schema.json#/properties/shards/items');
  return readdirSync(folder)
    .filter((name) => RECORD_NAME.test(name))
    .sort((a, b) => shardNumber(a) - shardNumber(b))
    .map((name) => {
      let data: unknown;
      try {
        data = JSON.parse(readFileSync(join(folder, name), 'utf8'));
      } catch {
        throw new Error(`${join(folder, name)} is not JSON: gather the file as the shard's run wrote it.`);
      }
      if (!validate(data))
        throw new Error(
          `${join(folder, name)} is not a shard record: ${describeSchemaErrors(validate.errors).join('; ')}`,
        );
      return data;
    });
}

function shardNumber(name: string): number {
  return Number(RECORD_NAME.exec(name)?.[1] ?? 0);
}

/**
 * Where the shards of a merged run disagree on what they ran against (target, kit, catalog), or a
 * shard's record disagrees with what its own results show it reached and saw (`seen`, written by
 * the merge from its blob): such a merge is not one run, or a record was edited. Each difference
 * names the field and the shards.
 */
export function shardDisagreements(shards: readonly ShardRecord[]): string[] {
  const [first, ...others] = shards;
  if (!first) return [];
  const kit = (record: ShardRecord): string =>
    `${record.suite.name} ${record.suite.version}${record.suite.commit ? ` ${record.suite.commit}` : ''}`;
  const fields: [string, (record: ShardRecord) => string][] = [
    ['target', (record) => JSON.stringify(record.target)],
    ['kit', kit],
    ['catalog', (record) => record.catalog?.sha256 ?? 'not recorded'],
  ];
  const recorded = fields.flatMap(([field, value]) =>
    others
      .filter((record) => value(record) !== value(first))
      .map(
        (record) =>
          `shard ${record.shard} ran a different ${field} than shard ${first.shard} (${value(record)}, not ${value(first)}).`,
      ),
  );
  return [...recorded, ...settingsDisagreements(shards), ...evidenceDisagreements(shards)];
}

/** The most shards a split may name for this check; a record claiming more names itself. */
const MAX_SHARDS = 1024;

/**
 * The shards of the split the records name (1/N … N/N) of which no record was gathered. Their
 * results may be in the merge all the same (a record is a file beside a blob, easily left out), so
 * what they ran under — target, settings, certificates — is not known: the merge is partial.
 */
export function shardsWithoutRecord(shards: readonly ShardRecord[]): string[] {
  const recorded = new Set(shards.map((shard) => shard.shard));
  const totals = [...new Set(shards.map((shard) => Number(shard.shard.split('/')[1])))].sort((a, b) => a - b);
  return totals.flatMap((total) =>
    !Number.isInteger(total) || total < 1 || total > MAX_SHARDS
      ? [`?/${total}`]
      : Array.from({ length: total }, (_, index) => `${index + 1}/${total}`).filter(
          (shard) => !recorded.has(shard),
        ),
  );
}

/** The settings that can change a verdict, as a shard's record states them; undefined for an older kit's. */
function settingsOf(record: ShardRecord): string | undefined {
  const settings = record.scope?.settings;
  if (!settings) return undefined;
  return Object.entries(settings)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, value]) => `${name} ${String(value)}`)
    .join(', ');
}

/**
 * Shards run with different settings (Playwright's retries, the retries of a transient answer,
 * the list bounds, …) are not one run: the merged report can state one set of settings only, and
 * a shard run with retries would hide them behind another's none.
 */
function settingsDisagreements(shards: readonly ShardRecord[]): string[] {
  const [first, ...others] = shards.filter((shard) => settingsOf(shard) !== undefined);
  if (!first) return [];
  return others
    .filter((record) => settingsOf(record) !== settingsOf(first))
    .map(
      (record) =>
        `shard ${record.shard} ran with other settings than shard ${first.shard} (${settingsOf(record)}, not ${settingsOf(first)}).`,
    );
}

/**
 * The settings a merged run ran under: its shards', as their records state them (the process that
 * merges ran no rule, so its own settings say nothing of the run). Undefined when no record states
 * them (no shards, or shards of an older kit).
 */
export function settingsOfShards(shards: readonly ShardRecord[]): ScopeSettings | undefined {
  return shards.find((shard) => shard.scope?.settings !== undefined)?.scope?.settings;
}

/** The report's `options` that restate `settings` (all but maxFailures, which options do not hold). */
export function optionsOfSettings(
  settings: ScopeSettings,
): Omit<NonNullable<ConformanceReport['options']>, 'failOnIncomplete' | 'selectedRules'> {
  return {
    requestTimeoutSeconds: settings.requestTimeoutSeconds,
    retries: settings.retries,
    repeatEach: settings.repeatEach,
    maxRetries: settings.maxRetries,
    retryBudgetSeconds: settings.retryBudgetSeconds,
    ...(settings.maxRequestsPerSecond !== undefined
      ? { maxRequestsPerSecond: settings.maxRequestsPerSecond }
      : {}),
    maxListPages: settings.maxListPages,
    maxListRecords: settings.maxListRecords,
  };
}

/**
 * A merged report's settings that are not its shards' (the merge's own environment stated instead
 * of what the shards ran under), each named; [] when they are, or no shard record states them.
 */
export function mergedSettingsDifferences(
  settings: ScopeSettings | undefined,
  shards: readonly ShardRecord[],
): string[] {
  const ran = settingsOfShards(shards);
  if (!ran) return [];
  const names = [...new Set([...Object.keys(ran), ...Object.keys(settings ?? {})])].sort();
  const value = (from: ScopeSettings | undefined, name: string): number | undefined =>
    (from as Record<string, number | undefined> | undefined)?.[name];
  return names
    .filter((name) => value(settings, name) !== value(ran, name))
    .map(
      (name) =>
        `the merged scope says ${name} ${String(value(settings, name) ?? 'unset')}, but the shards ran with ${String(value(ran, name) ?? 'unset')}.`,
    );
}

/**
 * A host as shards are compared by it: host:port, or for the embedded reference (each worker
 * starts its own on a free port) the name alone.
 */
function hostKeyOf(shards: readonly ShardRecord[]): (host: string) => string {
  const embedded = shards.some((shard) => shard.target.mode === 'embedded');
  return (host) => (embedded ? host.replace(/:(\d+|\{free port\})$/, '') : host);
}

/** Each certificate as "host fingerprint", sorted: what two shards or a record and a shard compare. */
function certificates(
  tls: readonly { host: string; fingerprint256: string }[],
  hostKey: (host: string) => string,
): string[] {
  return [...new Set(tls.map((entry) => `${hostKey(entry.host)} ${entry.fingerprint256}`))].sort();
}

function evidenceDisagreements(shards: readonly ShardRecord[]): string[] {
  const hostKey = hostKeyOf(shards);
  const problems: string[] = [];
  const judged = shards.filter((shard) => shard.seen !== undefined);
  for (const shard of judged) {
    const seen = shard.seen ?? { origins: [], tls: [] };
    const seenCertificates = certificates(seen.tls, hostKey);
    if (seenCertificates.length === 0)
      problems.push(
        `shard ${shard.shard}'s results hold no certificate its set-up saw: it cannot be judged.`,
      );
    if (!isDeepEqual(certificates(shard.tls ?? [], hostKey), seenCertificates))
      problems.push(
        `shard ${shard.shard}'s record names certificates (${certificates(shard.tls ?? [], hostKey).join('; ') || 'none'}) that are not those its set-up saw (${seenCertificates.join('; ') || 'none'}).`,
      );
    const base = originHost(shard.target.baseUrl);
    if (
      base !== undefined &&
      seen.origins.length > 0 &&
      !seen.origins.some(
        (origin) => originHost(origin) !== undefined && hostKey(originHost(origin) ?? '') === hostKey(base),
      )
    )
      problems.push(
        `shard ${shard.shard}'s record names the base URL ${shard.target.baseUrl}, but none of its exchanges went to ${base}.`,
      );
  }
  const [first, ...others] = judged;
  if (first)
    for (const shard of others) {
      const a = certificates(first.seen?.tls ?? [], hostKey);
      const b = certificates(shard.seen?.tls ?? [], hostKey);
      if (!isDeepEqual(a, b))
        problems.push(
          `shard ${shard.shard} saw other hosts or certificates (${b.join('; ')}) than shard ${first.shard} (${a.join('; ')}): the shards did not check one deployment.`,
        );
    }
  return problems;
}

function isDeepEqual(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((value, index) => value === b[index]);
}

/** host:port of a URL (the embedded reference's `{free port}` kept as written), if it is one. */
function originHost(url: string): string | undefined {
  const match = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]+)/i.exec(url);
  return match?.[1];
}
