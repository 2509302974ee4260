// The repository of runs: what a publish stores (in one transaction) and what the pages, the badge,
// can-i-ship and diff read. Facts are stored per run; every answer is a query over them.
import type { Database, Queryable } from '../database/database.ts';
import { insertBundleFiles, type BundleContent } from './bundle-files.ts';
import { sizeOf } from './file-rows.ts';
import { bindTarget, recordMove } from './targets.ts';

export type { BundleContent } from './bundle-files.ts';

export interface RuleOutcome {
  ruleId: string;
  level: string;
  /** 'all' for the rule's verdict over every protocol checked, else one protocol's (HTTP/1.1, HTTP/2). */
  protocol: string;
  verdict: string;
}

export const ALL_PROTOCOLS = 'all';

/** What a verified bundle says of its run, and who published it. */
export interface RunFacts {
  deployment: string;
  version: string;
  targetName: string;
  baseUrl: string;
  profile: string;
  verdict: string;
  protocolsChecked: string[];
  protocolsOffered: string[];
  rulesSelected: number;
  rulesInCatalog: number;
  partial: string[];
  scope: unknown;
  options: unknown;
  kitVersion: string;
  catalogSha256: string | null;
  statementSha256: string;
  reportSha256: string;
  signer: string;
  publisher: string;
  startedAt: string;
  /** Every warning `verify` prints for the run (claimWarnings): what the signature does not tie down. */
  warnings: string[];
  /** The other tenant's host the isolation rules used, when the run recorded it. */
  otherTenant: string | null;
  /**
   * Who ran the kit: 'publisher' (the vendor's word, signed by its key) or 'registry' (`registry
   * recheck`: the registry's operator ran it against the bound target, signed by the registry's key).
   */
  checkedBy: CheckedBy;
}

export const CHECKED_BY = ['publisher', 'registry'] as const;
export type CheckedBy = (typeof CHECKED_BY)[number];

/** A run withdrawn by `registry yank`: kept and shown, never deciding. */
export interface Yank {
  at: string;
  by: string;
  reason: string;
}

export interface StoredRun extends RunFacts {
  id: number;
  bundleSha256: string;
  publishedAt: string;
  /** Set when the run was yanked: it decides nothing from then on (can-i-ship, diff, badge, lists). */
  yanked: Yank | null;
  /** When the retention policy removed the bundle's files (the run's row and outcomes stay). */
  filesRemovedAt: string | null;
}

export type StoreResult =
  | { stored: 'new'; run: StoredRun }
  /** The same bundle was stored before: one run, whoever sends it again. */
  | { stored: 'duplicate'; run: StoredRun };

/** The deployment belongs to another publisher: nothing was stored. */
export class DeploymentOwnedError extends Error {
  constructor(readonly deployment: string) {
    super(`The deployment "${deployment}" is published by another publisher.`);
    this.name = 'DeploymentOwnedError';
  }
}

/** The registry checks only a deployment a publisher has published: nothing was stored. */
export class NoSuchDeploymentError extends Error {
  constructor(readonly deployment: string) {
    super(
      `The registry has no deployment named "${deployment}": it re-checks a deployment its publisher has published.`,
    );
    this.name = 'NoSuchDeploymentError';
  }
}

export const RUN_COLUMNS = `id, bundle_sha256, deployment, version, target_name, base_url, profile, verdict,
  protocols_checked, protocols_offered, rules_selected, rules_in_catalog, partial, scope, options,
  kit_version, catalog_sha256, statement_sha256, report_sha256, signer, publisher, started_at, published_at, warnings, other_tenant, checked_by,
  yanked_at, yanked_by, yank_reason, files_removed_at`;

export interface RunRow {
  id: number;
  bundle_sha256: string;
  deployment: string;
  version: string;
  target_name: string;
  base_url: string;
  profile: string;
  verdict: string;
  protocols_checked: string[];
  protocols_offered: string[];
  rules_selected: number;
  rules_in_catalog: number;
  partial: string[];
  scope: unknown;
  options: unknown;
  kit_version: string;
  catalog_sha256: string | null;
  statement_sha256: string;
  report_sha256: string;
  signer: string;
  publisher: string;
  started_at: Date | string;
  published_at: Date | string;
  warnings: string[];
  other_tenant: string | null;
  checked_by: CheckedBy;
  yanked_at: Date | string | null;
  yanked_by: string | null;
  yank_reason: string | null;
  files_removed_at: Date | string | null;
}

export function runOf(row: RunRow): StoredRun {
  return {
    id: row.id,
    bundleSha256: row.bundle_sha256,
    deployment: row.deployment,
    version: row.version,
    targetName: row.target_name,
    baseUrl: row.base_url,
    profile: row.profile,
    verdict: row.verdict,
    protocolsChecked: row.protocols_checked,
    protocolsOffered: row.protocols_offered,
    rulesSelected: row.rules_selected,
    rulesInCatalog: row.rules_in_catalog,
    partial: row.partial,
    scope: row.scope,
    options: row.options,
    kitVersion: row.kit_version,
    catalogSha256: row.catalog_sha256,
    statementSha256: row.statement_sha256,
    reportSha256: row.report_sha256,
    signer: row.signer,
    publisher: row.publisher,
    startedAt: new Date(row.started_at).toISOString(),
    publishedAt: new Date(row.published_at).toISOString(),
    warnings: row.warnings,
    otherTenant: row.other_tenant,
    checkedBy: row.checked_by,
    yanked:
      row.yanked_at === null
        ? null
        : {
            at: new Date(row.yanked_at).toISOString(),
            by: row.yanked_by ?? '',
            reason: row.yank_reason ?? '',
          },
    filesRemovedAt: row.files_removed_at === null ? null : new Date(row.files_removed_at).toISOString(),
  };
}

/** What a store does once the run is in, in its transaction (a webhook's events are queued so). */
export type OnStored = (tx: Queryable, result: StoreResult) => Promise<void>;

/**
 * Stores a run with its bundle and rule outcomes, all or nothing. A bundle stored before is not
 * stored again: its run is returned as a duplicate. `onStored` runs in the same transaction, after
 * a new run is stored: what it writes is committed with the run or not at all.
 */
export function storeRun(
  db: Database,
  facts: RunFacts,
  bundle: BundleContent,
  outcomes: readonly RuleOutcome[],
  { targetMoved = false, onStored }: { targetMoved?: boolean; onStored?: OnStored } = {},
): Promise<StoreResult> {
  return db.transaction(async (tx) => {
    const result = await storeIn(tx, facts, bundle, outcomes, targetMoved);
    if (result.stored === 'new') await onStored?.(tx, result);
    return result;
  });
}

/** storeRun's work, in its transaction. */
async function storeIn(
  tx: Queryable,
  facts: RunFacts,
  bundle: BundleContent,
  outcomes: readonly RuleOutcome[],
  targetMoved: boolean,
): Promise<StoreResult> {
  const earlier = await runByBundle(tx, bundle.sha256);
  if (earlier) return { stored: 'duplicate', run: earlier };
  // The registry's own run checks a deployment a publisher owns: it never creates or takes one.
  if (facts.checkedBy === 'publisher')
    await tx.query(
      'INSERT INTO deployments (name, publisher) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING',
      [facts.deployment, facts.publisher],
    );
  const [owner] = await tx.query<{ publisher: string }>('SELECT publisher FROM deployments WHERE name = $1', [
    facts.deployment,
  ]);
  if (owner === undefined) throw new NoSuchDeploymentError(facts.deployment);
  if (facts.checkedBy === 'publisher' && owner.publisher !== facts.publisher)
    throw new DeploymentOwnedError(facts.deployment);
  const target = { baseUrl: facts.baseUrl, otherTenant: facts.otherTenant };
  const movedFrom = await bindTarget(tx, facts.deployment, target, targetMoved);
  const size = bundle.files.reduce((total, file) => total + sizeOf(file), 0);
  // Two publishes of one bundle at once: the second waits here for the first, then finds its run.
  const inserted = await tx.query(
    'INSERT INTO bundles (sha256, size_bytes) VALUES ($1, $2) ON CONFLICT (sha256) DO NOTHING RETURNING sha256',
    [bundle.sha256, size],
  );
  if (inserted.length === 0) {
    const run = await runByBundle(tx, bundle.sha256);
    if (!run) throw new Error(`bundle ${bundle.sha256} is stored without its run`);
    return { stored: 'duplicate', run };
  }
  await insertBundleFiles(tx, bundle);
  const [row] = await tx.query<RunRow>(
    `INSERT INTO runs (bundle_sha256, deployment, version, target_name, base_url, profile, verdict,
       protocols_checked, protocols_offered, rules_selected, rules_in_catalog, partial, scope, options,
       kit_version, catalog_sha256, statement_sha256, report_sha256, signer, publisher, started_at, warnings, other_tenant, checked_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24)
     RETURNING ${RUN_COLUMNS}`,
    [
      bundle.sha256,
      facts.deployment,
      facts.version,
      facts.targetName,
      facts.baseUrl,
      facts.profile,
      facts.verdict,
      facts.protocolsChecked,
      facts.protocolsOffered,
      facts.rulesSelected,
      facts.rulesInCatalog,
      facts.partial,
      JSON.stringify(facts.scope),
      JSON.stringify(facts.options),
      facts.kitVersion,
      facts.catalogSha256,
      facts.statementSha256,
      facts.reportSha256,
      facts.signer,
      facts.publisher,
      facts.startedAt,
      facts.warnings,
      facts.otherTenant,
      facts.checkedBy,
    ],
  );
  if (!row) throw new Error('the run was not inserted');
  await tx.query(
    `INSERT INTO rule_outcomes (run_id, rule_id, level, protocol, verdict)
     SELECT $1, * FROM unnest($2::text[], $3::text[], $4::text[], $5::text[])`,
    [
      row.id,
      outcomes.map((outcome) => outcome.ruleId),
      outcomes.map((outcome) => outcome.level),
      outcomes.map((outcome) => outcome.protocol),
      outcomes.map((outcome) => outcome.verdict),
    ],
  );
  if (movedFrom) await recordMove(tx, facts.deployment, movedFrom, target, facts.publisher, row.id);
  return { stored: 'new', run: runOf(row) };
}

async function runByBundle(db: Queryable, sha256: string): Promise<StoredRun | undefined> {
  const [row] = await db.query<RunRow>(`SELECT ${RUN_COLUMNS} FROM runs WHERE bundle_sha256 = $1`, [sha256]);
  return row && runOf(row);
}

export async function runById(db: Queryable, id: number): Promise<StoredRun | undefined> {
  const [row] = await db.query<RunRow>(`SELECT ${RUN_COLUMNS} FROM runs WHERE id = $1`, [id]);
  return row && runOf(row);
}

/**
 * The order of runs: by the run's own signed start time, not by when it was uploaded (a run's id),
 * so a run published late does not pass for the newest; the id breaks a tie of start times.
 */
export const RUN_ORDER = 'started_at, id';
const RUN_ORDER_DESC = 'started_at DESC, id DESC';

/** A deployment's runs, oldest first by start time (of one version when given). */
export async function runsOf(db: Queryable, deployment: string, version?: string): Promise<StoredRun[]> {
  const rows =
    version === undefined
      ? await db.query<RunRow>(
          `SELECT ${RUN_COLUMNS} FROM runs WHERE deployment = $1 ORDER BY ${RUN_ORDER}`,
          [deployment],
        )
      : await db.query<RunRow>(
          `SELECT ${RUN_COLUMNS} FROM runs WHERE deployment = $1 AND version = $2 ORDER BY ${RUN_ORDER}`,
          [deployment, version],
        );
  return rows.map(runOf);
}

/** The newest run of a version by start time that is not yanked: the one that decides for it. */
export async function newestOfVersion(
  db: Queryable,
  deployment: string,
  version: string,
): Promise<StoredRun | undefined> {
  const [row] = await db.query<RunRow>(
    `SELECT ${RUN_COLUMNS} FROM runs WHERE deployment = $1 AND version = $2 AND yanked_at IS NULL ORDER BY ${RUN_ORDER_DESC} LIMIT 1`,
    [deployment, version],
  );
  return row && runOf(row);
}

/** A deployment's latest run not yanked, whatever its verdict (the badge). */
export async function latestRun(db: Queryable, deployment: string): Promise<StoredRun | undefined> {
  const [row] = await db.query<RunRow>(
    `SELECT ${RUN_COLUMNS} FROM runs WHERE deployment = $1 AND yanked_at IS NULL ORDER BY ${RUN_ORDER_DESC} LIMIT 1`,
    [deployment],
  );
  return row && runOf(row);
}

export async function deploymentExists(db: Queryable, name: string): Promise<boolean> {
  return (await db.query('SELECT 1 FROM deployments WHERE name = $1', [name])).length > 0;
}

/** The rule outcomes of some runs. */
export async function outcomesOf(
  db: Queryable,
  runIds: readonly number[],
): Promise<(RuleOutcome & { runId: number })[]> {
  if (runIds.length === 0) return [];
  const rows = await db.query<{
    run_id: number;
    rule_id: string;
    level: string;
    protocol: string;
    verdict: string;
  }>(
    'SELECT run_id, rule_id, level, protocol, verdict FROM rule_outcomes WHERE run_id = ANY($1::int[]) ORDER BY run_id, rule_id, protocol',
    [runIds],
  );
  return rows.map((row) => ({
    runId: row.run_id,
    ruleId: row.rule_id,
    level: row.level,
    protocol: row.protocol,
    verdict: row.verdict,
  }));
}

/** How many runs, bundles and outcomes are stored (tests: nothing partial after a refusal). */
export async function storedCounts(
  db: Queryable,
): Promise<{ runs: number; bundles: number; files: number; outcomes: number; deployments: number }> {
  const [row] = await db.query<{
    runs: number;
    bundles: number;
    files: number;
    outcomes: number;
    deployments: number;
  }>(
    `SELECT (SELECT count(*)::int FROM runs) AS runs, (SELECT count(*)::int FROM bundles) AS bundles,
       (SELECT count(*)::int FROM bundle_files) AS files, (SELECT count(*)::int FROM rule_outcomes) AS outcomes,
       (SELECT count(*)::int FROM deployments) AS deployments`,
  );
  if (!row) throw new Error('no counts');
  return row;
}
