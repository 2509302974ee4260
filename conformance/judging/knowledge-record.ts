// What the suite learned of the tenants (knowledge.ts), as a JSON record: the set-up project of a
// run learns once and leaves it in the run's state directory, and every rule worker — the first,
// or one Playwright started after a failed test — reads it instead of walking the lists again.
// The keyless answer that was served data (`servedWithoutKey`) is not kept: it is a failure the
// learning itself reports, once, with its evidence; the rules never read it.
import type { Knowledge, Validators } from './knowledge.ts';
import type { TenantValues } from './tenant-knowledge.ts';
import type { NextPage } from './pages.ts';

interface TenantRecord {
  label: string;
  values: string[];
}

export interface KnowledgeRecord {
  own?: TenantRecord;
  other?: TenantRecord;
  otherUnanswered?: string;
  sharedRecords?: string[];
  ownServed?: string[];
  otherNextPage?: NextPage;
  listsCut?: string[];
  validators?: Partial<Record<'own' | 'other', Validators>>;
}

export function knowledgeRecord(knowledge: Knowledge): KnowledgeRecord {
  const tenant = (values: TenantValues): TenantRecord => ({
    label: values.label,
    values: [...values.values],
  });
  return {
    ...(knowledge.own ? { own: tenant(knowledge.own) } : {}),
    ...(knowledge.other ? { other: tenant(knowledge.other) } : {}),
    ...(knowledge.otherUnanswered !== undefined ? { otherUnanswered: knowledge.otherUnanswered } : {}),
    ...(knowledge.sharedRecords ? { sharedRecords: [...knowledge.sharedRecords] } : {}),
    ...(knowledge.ownServed ? { ownServed: [...knowledge.ownServed] } : {}),
    ...(knowledge.otherNextPage ? { otherNextPage: { ...knowledge.otherNextPage } } : {}),
    ...(knowledge.listsCut ? { listsCut: [...knowledge.listsCut] } : {}),
    ...(knowledge.validators ? { validators: structuredClone(knowledge.validators) } : {}),
  };
}

/** The knowledge a record holds, as learnTenants made it (without `servedWithoutKey`). */
export function knowledgeOfRecord(record: KnowledgeRecord): Knowledge {
  const tenant = (values: TenantRecord): TenantValues => ({
    label: values.label,
    values: new Set(values.values),
  });
  return {
    ...(record.own ? { own: tenant(record.own) } : {}),
    ...(record.other ? { other: tenant(record.other) } : {}),
    ...(record.otherUnanswered !== undefined ? { otherUnanswered: record.otherUnanswered } : {}),
    ...(record.sharedRecords ? { sharedRecords: new Set(record.sharedRecords) } : {}),
    ...(record.ownServed ? { ownServed: new Set(record.ownServed) } : {}),
    ...(record.otherNextPage ? { otherNextPage: { ...record.otherNextPage } } : {}),
    ...(record.listsCut ? { listsCut: [...record.listsCut] } : {}),
    ...(record.validators ? { validators: structuredClone(record.validators) } : {}),
  };
}
