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
 * Where the shards of a merged run disagree on what they ran against (target, kit, catalog): such
 * a merge is not one run. Each difference names the field and the shards.
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
  return fields.flatMap(([field, value]) =>
    others
      .filter((record) => value(record) !== value(first))
      .map(
        (record) =>
          `shard ${record.shard} ran a different ${field} than shard ${first.shard} (${value(record)}, not ${value(first)}).`,
      ),
  );
}
