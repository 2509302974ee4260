// can-i-ship: may this version of a deployment ship, under this profile and over these protocols?
// Yes only when the latest stored run of that version that covers the question — the profile
// asked (a strict run answers for both profiles; a default run only for default), every protocol
// asked checked (by default every protocol the target offered), every rule of the catalog selected
// — is CONFORMANT. Every stored run was VERIFIED on arrival. Otherwise the answer says why not,
// run by run. The latest covering run by its own signed start time decides, not any (and not the
// last uploaded): a version whose runs disagree is not one to ship on the strength of its best run.
import { PROTOCOLS, type Profile, type Protocol } from '../../conformance/settings.ts';
import type { Queryable } from '../database/database.ts';
import { deploymentExists, runsOf, type StoredRun } from '../store/runs.ts';

export interface ShipQuestion {
  deployment: string;
  version: string;
  profile?: Profile;
  /** h1, h2; when absent, every protocol the run found the target offers. */
  protocols?: readonly Protocol[];
  /** Refuse a deciding run that verify warns of (a host map to loopback, a private CA…). */
  noWarnings?: boolean;
  /** 'registry': answer only from the runs the registry checked itself (registry recheck). */
  checkedBy?: 'registry';
}

export interface ShipAnswer {
  ship: boolean;
  /** One sentence: yes and on which run, or why not. */
  reason: string;
  /** The run that decided, when one covers the question. */
  run?: StoredRun;
  /** Each run of the version that does not cover the question, and why. */
  notCovering: { id: number; why: string }[];
}

export const PROTOCOL_NAMES: Record<Protocol, string> = { h1: 'HTTP/1.1', h2: 'HTTP/2' };
export { PROTOCOLS };

/** What the stored scope says beyond its columns, read defensively (a report of an earlier kit has none). */
interface ScopeDetail {
  /** Protocols checked for only some of the selected rules (a merge of per-protocol shards). */
  rulesChecked?: Record<string, number>;
  /** Lists a bound stopped while a next page existed: records past it were not checked. */
  listsCut?: string[];
}

/** Why `run` does not answer the question, or undefined when it covers it. */
export function coverageGap(run: StoredRun, question: ShipQuestion): string | undefined {
  const detail = (run.scope ?? {}) as ScopeDetail;
  const rulesChecked = detail.rulesChecked ?? {};
  const listsCut = Array.isArray(detail.listsCut) ? detail.listsCut : [];
  const checkedFor = (protocol: string): number | undefined => {
    if (!run.protocolsChecked.includes(protocol)) return 0;
    const some = rulesChecked[protocol];
    return typeof some === 'number' && some < run.rulesSelected ? some : undefined;
  };
  const gaps: string[] = [];
  if (question.profile === 'strict' && run.profile !== 'strict')
    gaps.push(`it ran under the ${run.profile} profile, strict was asked`);
  const asked = question.protocols?.map((protocol) => PROTOCOL_NAMES[protocol]) ?? run.protocolsOffered;
  const unchecked = asked.filter((protocol) => checkedFor(protocol) === 0);
  if (unchecked.length > 0)
    gaps.push(
      `it checked ${run.protocolsChecked.join(' and ')} only, ${question.protocols ? 'and' : 'but the target offers'} ${unchecked.join(' and ')}${question.protocols ? ' was asked' : ''}`,
    );
  for (const protocol of asked) {
    const some = checkedFor(protocol);
    if (some !== undefined && some > 0)
      gaps.push(`it checked ${protocol} for ${some} of its ${run.rulesSelected} selected rules only`);
  }
  if (run.rulesSelected < run.rulesInCatalog)
    gaps.push(`it selected ${run.rulesSelected} of the catalog's ${run.rulesInCatalog} rules`);
  if (listsCut.length > 0)
    gaps.push(`a list bound stopped it before the end of a list (${listsCut.join(' ')})`);
  // Any other reason the run calls itself partial (one this registry does not know) is a gap too:
  // the sentences of the reasons above are counted out, whatever remains is not covered.
  const known =
    run.protocolsOffered.filter((protocol) => checkedFor(protocol) !== undefined).length +
    (run.rulesSelected < run.rulesInCatalog ? 1 : 0) +
    listsCut.length;
  if (run.partial.length > known) gaps.push(`it is partial: ${run.partial.join(' ')}`);
  return gaps.length > 0 ? gaps.join('; ') : undefined;
}

/** A registry-checked run that does not cover the question still says what it found (a failure is a failure). */
const verdictOf = (runs: readonly StoredRun[], id: number): string =>
  runs.find((run) => run.id === id)?.verdict ?? '';

/** Said of a run the registry checked itself, wherever a sentence names the deciding run. */
const checkedText = (run: StoredRun): string =>
  run.checkedBy === 'registry' ? ', checked by the registry' : '';

function scopeText(question: ShipQuestion): string {
  const protocols = question.protocols
    ? question.protocols.map((protocol) => PROTOCOL_NAMES[protocol]).join(' and ')
    : 'every protocol offered';
  return `${question.profile ?? 'default'} profile, ${protocols}`;
}

export async function canIShip(db: Queryable, question: ShipQuestion): Promise<ShipAnswer> {
  const subject = `${question.deployment} ${question.version}`;
  if (!(await deploymentExists(db, question.deployment)))
    return {
      ship: false,
      reason: `No: the registry has no deployment named "${question.deployment}".`,
      notCovering: [],
    };
  const every = await runsOf(db, question.deployment, question.version);
  // --checked-by registry: a publisher's runs are its word about what ran; only the registry's own count.
  const byRegistry = question.checkedBy === 'registry';
  const stored = byRegistry ? every.filter((run) => run.checkedBy === 'registry') : every;
  if (byRegistry && stored.length === 0)
    return {
      ship: false,
      reason: `No: no run of ${subject} checked by the registry (registry recheck runs the kit against the deployment)${every.length > 0 ? `; ${every.length} run${every.length > 1 ? 's' : ''} published by ${[...new Set(every.map((run) => run.publisher))].join(', ')} ${every.length > 1 ? 'do' : 'does'} not count` : ''}.`,
      notCovering: [],
    };
  // A yanked run is kept and shown, and decides nothing: the answer names it, so that a yes after a
  // yank is not read as the yanked run's.
  const yanked = stored.filter((run) => run.yanked !== null);
  const runs = stored.filter((run) => run.yanked === null);
  const yankedText =
    yanked.length > 0
      ? ` (yanked, deciding nothing: ${yanked.map((run) => `run ${run.id}, "${run.yanked?.reason ?? ''}"`).join('; ')})`
      : '';
  if (stored.length === 0)
    return { ship: false, reason: `No: no run of ${subject} has been published.`, notCovering: [] };
  if (runs.length === 0)
    return {
      ship: false,
      reason: `No: every run of ${subject} is yanked${yankedText}.`,
      notCovering: [],
    };
  const notCovering: { id: number; why: string }[] = [];
  const covering: StoredRun[] = [];
  for (const run of runs) {
    const gap = coverageGap(run, question);
    if (gap === undefined) covering.push(run);
    else notCovering.push({ id: run.id, why: gap });
  }
  // Runs are ordered by their own start time: a run uploaded after the latest but started before
  // it is kept, and never decides; the answer names it so the late upload is not taken as current.
  const latest = covering.at(-1);
  const late = latest ? covering.filter((run) => run.id > latest.id) : [];
  const lateText =
    late.length > 0
      ? ` (${late.map((run) => `run ${run.id}, started ${run.startedAt}`).join('; ')}, published later but started earlier, ${late.length > 1 ? 'do' : 'does'} not decide)${yankedText}`
      : yankedText;
  if (latest === undefined)
    return {
      ship: false,
      reason: `No: no run of ${subject}${byRegistry ? ' checked by the registry' : ''} covers the ${scopeText(question)}: ${notCovering.map((gap) => `run ${gap.id}${byRegistry ? ` (${verdictOf(runs, gap.id)})` : ''}: ${gap.why}`).join('; ')}${yankedText}.`,
      notCovering,
    };
  // verify's warnings travel with the run into the sentence: a yes says what the signature does not tie down.
  const warned =
    latest.warnings.length > 0
      ? `; verify warns of it (${latest.warnings.length}): ${latest.warnings.join(' ')}`
      : '';
  if (latest.verdict === 'CONFORMANT' && question.noWarnings === true && latest.warnings.length > 0)
    return {
      ship: false,
      reason: `No: run ${latest.id} of ${subject} (started ${latest.startedAt}), the latest by start time, decides and is CONFORMANT, but no warning was allowed (--no-warnings) and verify warns of it (${latest.warnings.length}): ${latest.warnings.join(' ')}`,
      run: latest,
      notCovering,
    };
  if (latest.verdict === 'CONFORMANT')
    return {
      ship: true,
      reason: `Yes: run ${latest.id} of ${subject} (started ${latest.startedAt}, signed by ${latest.signer}${checkedText(latest)}), the latest by start time, decides: it is VERIFIED and CONFORMANT under the ${scopeText(question)} (it ran ${latest.profile}, over ${latest.protocolsChecked.join(' and ')})${lateText}${warned}${warned ? '' : '.'}`,
      run: latest,
      notCovering,
    };
  const earlierConformant = covering.filter((run) => run.verdict === 'CONFORMANT').map((run) => run.id);
  return {
    ship: false,
    reason: `No: the latest run of ${subject} by start time that covers the ${scopeText(question)}, run ${latest.id} (started ${latest.startedAt}${checkedText(latest)}), decides: it is ${latest.verdict}${lateText}${earlierConformant.length > 0 ? `; earlier run${earlierConformant.length > 1 ? 's' : ''} ${earlierConformant.join(', ')} ${earlierConformant.length > 1 ? 'were' : 'was'} CONFORMANT, so the outcome is unstable: run registry diff to see which rules flip` : ''}.`,
    run: latest,
    notCovering,
  };
}
