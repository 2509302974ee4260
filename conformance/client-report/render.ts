// The client report for people and CI: a console table, Markdown, and JUnit (one suite per client,
// one case per rule), all rendered from the judged report (judge.ts), never from the journal.
import type { ClientReport, ClientResult, ClientRuleResult } from '../../schemas/generated/client-report.ts';
import { junitDocument, xmlSafe, type Element } from '../report/junit.ts';

const VERDICT_LABEL: Record<ClientRuleResult['verdict'], string> = {
  pass: 'pass',
  fail: 'FAIL',
  warning: 'warning',
  'not-evaluated': 'not evaluated',
};

const PROTOCOL_LABEL: Record<NonNullable<ClientResult['protocol']>, string> = {
  h1: 'HTTP/1.x',
  h2: 'HTTP/2',
};

/** The key (an unknown one with its fingerprint), the user agent and the protocol. */
export function clientLabel(client: ClientResult): string {
  const key = client.keyFingerprint === undefined ? client.key : `${client.key} ${client.keyFingerprint}`;
  const protocol = client.protocol === undefined ? [] : [PROTOCOL_LABEL[client.protocol]];
  return [key, client.userAgent, ...protocol].join(' · ');
}

/** A revoked key grants nothing and cannot be rotated (the admin API answers key_revoked). */
function exposedAction(client: ClientResult): string {
  const revoked = client.rules.some(
    (rule) => rule.id === 'CLIENT-KEY-NOT-REVOKED' && rule.verdict === 'fail',
  );
  return revoked ? 'already revoked, nothing to rotate' : 'rotate it';
}

export function renderConsole(report: ClientReport, reportFiles: readonly string[]): string {
  const lines = [
    `Client report: ${report.journal.entries} requests of ${report.summary.clients} clients`,
    '',
  ];
  const labelWidth = Math.min(
    60,
    Math.max(20, ...report.clients.map((client) => clientLabel(client).length)),
  );
  lines.push(`  ${'client'.padEnd(labelWidth)}  ${'requests'.padStart(8)}  verdict`);
  for (const client of report.clients) {
    const exposed = client.exposed ? `  KEY EXPOSED (critical): ${exposedAction(client)}` : '';
    lines.push(
      `  ${clientLabel(client).slice(0, labelWidth).padEnd(labelWidth)}  ${String(client.requests).padStart(8)}  ${client.verdict}${exposed}`,
    );
    for (const rule of client.rules.filter(
      (candidate) => candidate.verdict === 'fail' || candidate.verdict === 'warning',
    )) {
      lines.push(
        `      ${VERDICT_LABEL[rule.verdict].padEnd(8)} ${rule.level.padEnd(8)} ${rule.id}: ${rule.message ?? ''}`,
      );
    }
  }
  for (const exposed of report.exposedKeys) lines.push('', `  EXPOSED (critical): ${exposed.advice}`);
  if (report.journal.dropped > 0) lines.push('', `  ${droppedNote(report)}`);
  lines.push('', `VERDICT: ${report.verdict}`, `Reports: ${reportFiles.join(', ')}`, '');
  return lines.join('\n');
}

export function renderMarkdown(report: ClientReport): string {
  const lines = [
    '# Client report',
    '',
    `**Verdict: ${report.verdict}**`,
    '',
    '| | |',
    '|---|---|',
    `| Server | ${cell(report.server)} |`,
    `| Window | ${cell(windowText(report))} |`,
    `| Generated | ${report.generatedAt} |`,
    `| Suite | ${report.suite.name} ${report.suite.version} |`,
    `| Requests | ${report.journal.entries} (${report.journal.dropped} older dropped by the server) |`,
    `| Clients | ${report.summary.clients}: ${report.summary.conformant} conformant, ${report.summary.notConformant} not conformant |`,
    '',
  ];
  if (report.journal.dropped > 0) lines.push(`> ${droppedNote(report)}`, '');
  if (report.exposedKeys.length > 0) {
    lines.push('## Exposed keys (critical)', '');
    for (const exposed of report.exposedKeys) lines.push(`- ${cell(exposed.advice)}`);
    lines.push('');
  }
  lines.push('## Clients', '', '| Client | Tenants | Requests | Verdict |', '|---|---|---|---|');
  for (const client of report.clients) {
    lines.push(
      `| ${cell(clientLabel(client))} | ${client.tenants.join(', ')} | ${client.requests} | ${client.verdict}${client.exposed ? ' (key exposed)' : ''} |`,
    );
  }
  for (const client of report.clients) {
    lines.push(
      '',
      `### ${cell(clientLabel(client))} — ${client.verdict}`,
      '',
      '| Rule | Level | Verdict | Details |',
      '|---|---|---|---|',
    );
    for (const rule of client.rules) {
      lines.push(
        `| ${rule.id} | ${rule.level} | ${VERDICT_LABEL[rule.verdict]} | ${cell(rule.message ?? '')} |`,
      );
    }
    for (const rule of client.rules.filter((candidate) => candidate.evidence)) {
      for (const evidence of rule.evidence ?? []) {
        lines.push(
          `- ${rule.id}: ${evidence.time} ${evidence.transport} ${evidence.method ?? ''} ${evidence.path ?? ''} → ${evidence.status ?? '-'} ${evidence.errorCode ?? ''}: ${evidence.detail}`,
        );
      }
    }
  }
  return `${lines.join('\n')}\n`;
}

export function renderJunit(report: ClientReport): string {
  const suites = report.clients.map((client) => {
    const label = xmlSafe(clientLabel(client));
    const testcase = client.rules.map((rule): Element => {
      const base = { '@name': xmlSafe(`${rule.id} (${rule.level})`), '@classname': label };
      const message = xmlSafe(rule.message ?? rule.statement);
      if (rule.verdict === 'fail') return { ...base, failure: { '@message': message } };
      if (rule.verdict === 'not-evaluated') return { ...base, skipped: { '@message': message } };
      if (rule.verdict === 'warning') return { ...base, 'system-out': `warning: ${message}` };
      return base;
    });
    const verdicts = client.rules.map((rule) => rule.verdict);
    return {
      '@name': label,
      '@tests': verdicts.length,
      '@failures': verdicts.filter((verdict) => verdict === 'fail').length,
      '@errors': 0,
      '@skipped': verdicts.filter((verdict) => verdict === 'not-evaluated').length,
      testcase,
    };
  });
  return junitDocument(`client conformance: ${report.verdict}`, suites, 0);
}

function windowText(report: ClientReport): string {
  const { tenant, keyId, since, until } = report.window;
  const parts = [
    tenant === undefined ? 'every tenant' : `tenant ${tenant}`,
    ...(keyId === undefined ? [] : [`key ${keyId}`]),
    `from ${since ?? 'the oldest entry'}`,
    `to ${until ?? 'now'}`,
  ];
  return parts.join(', ');
}

function droppedNote(report: ClientReport): string {
  return `The server dropped ${report.journal.dropped} older journal entries to stay within its bound: requests before the oldest entry are not judged.`;
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}
