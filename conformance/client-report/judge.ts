// Judges a window of the journal: groups its entries by client (the key id, or unknown key and
// its fingerprint, with the user agent and the protocol), applies every client rule to each
// client's entries, and gives each client and the whole window a verdict. Everything is derived
// from the catalog plus the entries, never from a hand-kept list.
import type { ApiKeyMetadata } from '../../schemas/generated/api-key-management.ts';
import type {
  ClientEvidence,
  ClientReport,
  ClientResult,
  ClientRuleResult,
  ExposedKey,
} from '../../schemas/generated/client-report.ts';
import type { Journal, JournalEntry } from '../../schemas/generated/journal.ts';
import type { Permission } from '../../schemas/generated/fixtures.ts';
import { findRoute } from '../../reference-server/api/request-pipeline.ts';
import { CLIENT_RULES, type ClientRule } from '../catalog/client-rules.ts';
import { ENTRY_CHECKS, NOT_APPLICABLE, type EntryCheck } from './client-checks.ts';
import { HISTORY_CHECKS, isHistoryRule, type HistoryFinding } from './history-checks.ts';

export const NO_KEY = 'no key';
const NO_USER_AGENT = '(no User-Agent)';
const BARE_CONNECTION = '(TLS connection without SNI, no request)';
const MAX_EVIDENCE = 3;

export interface JudgeInput {
  journal: Journal;
  /** The metadata of each key id the window names, where the admin API knows it. */
  keys: ReadonlyMap<string, ApiKeyMetadata>;
  server: string;
  window: ClientReport['window'];
  suite: ClientReport['suite'];
  generatedAt: Date;
}

export function judgeClients(input: JudgeInput): ClientReport {
  const groups = new Map<string, JournalEntry[]>();
  for (const entry of input.journal.data) {
    const id = clientIdOf(entry);
    groups.set(id, [...(groups.get(id) ?? []), entry]);
  }
  const clients = [...groups.values()].map((entries) => judgeClient(entries, input.keys));
  const exposedKeys = exposedKeysOf(input.journal.data);
  const notConformant = clients.filter((client) => client.verdict === 'CLIENT NOT CONFORMANT').length;
  return {
    suite: input.suite,
    server: input.server,
    window: input.window,
    generatedAt: input.generatedAt.toISOString(),
    verdict: notConformant > 0 ? 'CLIENT NOT CONFORMANT' : 'CLIENT CONFORMANT',
    journal: {
      entries: input.journal.data.length,
      dropped: input.journal.tenants.reduce((sum, tenant) => sum + tenant.dropped, 0),
    },
    summary: {
      clients: clients.length,
      conformant: clients.length - notConformant,
      notConformant,
      exposedKeys: exposedKeys.length,
    },
    exposedKeys,
    clients,
  };
}

/**
 * A client is a key (an unknown key by its fingerprint) with a user agent and a protocol: one
 * library over HTTP/1.1 and over HTTP/2 is two clients, since what it puts on the wire differs.
 */
function clientIdOf(entry: JournalEntry): string {
  return JSON.stringify([
    entry.key ?? NO_KEY,
    entry.keyFingerprint ?? '',
    userAgentOf(entry),
    entry.protocol ?? '',
  ]);
}

function userAgentOf(entry: JournalEntry): string {
  if (entry.transport === 'tls') return BARE_CONNECTION;
  return entry.userAgent ?? NO_USER_AGENT;
}

function judgeClient(
  entries: readonly JournalEntry[],
  keys: ReadonlyMap<string, ApiKeyMetadata>,
): ClientResult {
  const first = entries[0] as JournalEntry;
  const rules = CLIENT_RULES.map((rule): ClientRuleResult => {
    if (rule.id === 'CLIENT-LEAST-PRIVILEGE') return leastPrivilege(rule, entries, keys);
    const { applicable, violating } = isHistoryRule(rule.id)
      ? HISTORY_CHECKS[rule.id](entries)
      : entryFinding(ENTRY_CHECKS[rule.id], entries);
    if (applicable === 0) {
      return {
        ...ruleFields(rule),
        verdict: 'not-evaluated',
        violations: 0,
        message: 'No request of this client that the rule applies to (e.g. none with a body).',
      };
    }
    if (violating.length === 0) return { ...ruleFields(rule), verdict: 'pass', violations: 0 };
    return {
      ...ruleFields(rule),
      verdict: rule.level === 'MUST' ? 'fail' : 'warning',
      violations: violating.length,
      message: `${violating.length} of ${applicable} requests: ${[...new Set(violating.map((item) => item.detail))].join('; ')}.`,
      evidence: violating.slice(0, MAX_EVIDENCE).map(({ entry, detail }) => evidenceOf(entry, detail)),
    };
  });
  const fails = rules.some((rule) => rule.verdict === 'fail');
  const times = entries.map((entry) => entry.time).sort();
  return {
    key: first.key ?? NO_KEY,
    ...(first.keyFingerprint !== undefined ? { keyFingerprint: first.keyFingerprint } : {}),
    userAgent: userAgentOf(first),
    ...(first.protocol !== undefined ? { protocol: first.protocol } : {}),
    tenants: [
      ...new Set(entries.flatMap((entry) => (entry.tenant === undefined ? [] : [entry.tenant]))),
    ].sort(),
    requests: entries.filter((entry) => entry.transport !== 'tls').length,
    firstSeen: times[0] as string,
    lastSeen: times[times.length - 1] as string,
    verdict: fails ? 'CLIENT NOT CONFORMANT' : 'CLIENT CONFORMANT',
    ...(entries.some((entry) => entry.transport === 'http' && entry.key !== undefined)
      ? { exposed: 'critical' as const }
      : {}),
    rules,
  };
}

/** A rule read entry by entry. */
function entryFinding(check: EntryCheck, entries: readonly JournalEntry[]): HistoryFinding {
  const finding: HistoryFinding = { applicable: 0, violating: [] };
  for (const entry of entries) {
    const result = check(entry);
    if (result === NOT_APPLICABLE) continue;
    finding.applicable += 1;
    if (result !== undefined) finding.violating.push({ entry, detail: result });
  }
  return finding;
}

/** The permissions the key has beyond every operation the client used it for in the window. */
function leastPrivilege(
  rule: ClientRule,
  entries: readonly JournalEntry[],
  keys: ReadonlyMap<string, ApiKeyMetadata>,
): ClientRuleResult {
  const key = keys.get(entries[0]?.key ?? '');
  if (!key) {
    return {
      ...ruleFields(rule),
      verdict: 'not-evaluated',
      violations: 0,
      message:
        'The key is not known to the admin API (no key, an unknown key, or a key of a tenant not read).',
    };
  }
  if (key.revoked) {
    return { ...ruleFields(rule), verdict: 'not-evaluated', violations: 0, message: 'The key is revoked.' };
  }
  const used = new Set<Permission>();
  for (const entry of entries) {
    const route = entry.transport === 'https' ? findRoute(entry.path ?? '') : undefined;
    if (route && route.methods.includes(entry.method ?? '')) used.add(route.permission);
  }
  if (used.size === 0) {
    return {
      ...ruleFields(rule),
      verdict: 'not-evaluated',
      violations: 0,
      message: 'No API operation of this key to judge.',
    };
  }
  const readsOnly = [...used].every((permission) => permission.endsWith(':read'));
  if (key.access === 'full_access' && readsOnly) {
    return finding(
      rule,
      `The key ${key.id} has Full Access but was only used to read in this window: a Read Only key would do.`,
    );
  }
  const unused = key.permissions.filter((permission) => !used.has(permission));
  if (key.access === 'custom' && unused.length > 0) {
    return finding(
      rule,
      `The key ${key.id} also allows ${unused.join(', ')}, never used in this window: a key with only ${[...used].join(', ')} would do.`,
    );
  }
  return { ...ruleFields(rule), verdict: 'pass', violations: 0 };
}

function finding(rule: ClientRule, message: string): ClientRuleResult {
  return { ...ruleFields(rule), verdict: 'warning', violations: 1, message };
}

function exposedKeysOf(entries: readonly JournalEntry[]): ExposedKey[] {
  const exposed = new Map<string, ExposedKey>();
  for (const entry of entries) {
    if (entry.transport !== 'http' || entry.key === undefined) continue;
    const id = `${entry.key} ${entry.keyFingerprint ?? ''}`;
    if (exposed.has(id)) continue;
    const known = entry.keyFingerprint === undefined;
    exposed.set(id, {
      key: entry.key,
      ...(entry.keyFingerprint !== undefined ? { keyFingerprint: entry.keyFingerprint } : {}),
      ...(entry.tenant !== undefined ? { tenant: entry.tenant } : {}),
      severity: 'critical',
      advice: exposureAdvice(entry, known),
    });
  }
  return [...exposed.values()];
}

function exposureAdvice(entry: JournalEntry, known: boolean): string {
  if (!known)
    return `A key the server does not know (fingerprint ${entry.keyFingerprint ?? '?'}) was sent over plain HTTP: if it is a real key anywhere, rotate it.`;
  // A revoked key grants nothing, and the admin API refuses to rotate it (key_revoked).
  if (entry.keyRevoked === true)
    return `${entry.key} was sent over plain HTTP; it is already revoked, so there is nothing to rotate: make the client send its key over HTTPS only.`;
  return `Rotate ${entry.key} now: it was sent over plain HTTP (panel Settings → API → API Keys, or POST /v1/tenants/${entry.tenant ?? '{tenant}'}/keys/${entry.key}/rotate on the admin API).`;
}

function ruleFields(rule: ClientRule): Pick<ClientRuleResult, 'id' | 'level' | 'source' | 'statement'> {
  return { id: rule.id, level: rule.level, source: rule.source, statement: rule.statement };
}

function evidenceOf(entry: JournalEntry, detail: string): ClientEvidence {
  return {
    time: entry.time,
    transport: entry.transport,
    ...(entry.method !== undefined ? { method: entry.method } : {}),
    ...(entry.path !== undefined ? { path: entry.path } : {}),
    ...(entry.status !== undefined ? { status: entry.status } : {}),
    ...(entry.errorCode !== undefined ? { errorCode: entry.errorCode } : {}),
    detail,
  };
}
