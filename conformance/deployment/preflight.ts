// Preflight: before any rule, each base URL the target declares is reached stage by stage —
// name resolution (through the host map), TCP connect, TLS handshake verified for that name, one
// plain request that gets an HTTP answer. A stage that fails is a mistake in the set-up (or a
// target that is down), not evidence about the rules: the run stops with SETUP ERROR for the base
// URL under test, and the rules that need another declared URL are not evaluated. The stages are
// reach.ts's; this runs them over every declared URL at once and gathers what they find.
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { trustedCas } from '../requests/ca-trust.ts';
import type { ResolvedTarget } from './target.ts';
import type { SetupProblem } from '../../schemas/generated/conformance-report.ts';
import { tlsEvidenceOf, type TlsEvidence } from './tls-evidence.ts';
import type { RecordedExchange } from '../requests/exchange-record.ts';
import { offeredProtocols, PROTOCOL_NAME, protocolsOfRun, type Protocol } from '../requests/protocols.ts';
import { alpnOffered, reach } from './reach.ts';

/** One failed stage, as every report shows it (schemas/conformance-report.schema.json). */
export type PreflightProblem = SetupProblem;
export type PreflightStage = SetupProblem['stage'];
/** The base URLs a target declares, by the name the target file gives them. */
export type DeclaredUrl = NonNullable<SetupProblem['field']>;

export interface PreflightResult {
  ok: boolean;
  /** Problems of `baseUrl` or of the target file itself: the run cannot start. */
  blocking: PreflightProblem[];
  /** Problems of another declared URL: the rules that need it are not evaluated. */
  unavailable: PreflightProblem[];
  /** The certificate and protocol of each declared URL whose handshake verified. */
  tls?: TlsEvidence[];
  /**
   * The keyless GET sent to each declared URL that verified, as sent and answered: the run's
   * record (exchanges.har) holds them with the rules' exchanges. Never keys: none is sent.
   */
  exchanges?: RecordedExchange[];
}

const DECLARED_URLS: readonly DeclaredUrl[] = ['baseUrl', 'otherTenantBaseUrl', 'sandboxBaseUrl'];

export async function runPreflight(
  target: ResolvedTarget,
  timeoutMs: number,
  protocols: readonly Protocol[] = protocolsOfRun(),
): Promise<PreflightResult> {
  const fileProblems = checkTargetFiles(target);
  if (fileProblems.length > 0) return { ok: false, blocking: fileProblems, unavailable: [] };
  const ca = trustedCas(target.caFile);
  const checks = DECLARED_URLS.flatMap((field) => {
    const url = target[field];
    return url === undefined ? [] : [{ field, url }];
  });
  const tls: TlsEvidence[] = [];
  const exchanges: RecordedExchange[] = [];
  const found = await Promise.all(
    checks.map(async ({ field, url }): Promise<PreflightProblem[]> => {
      const problem = await reach(url, {
        hosts: target.hosts,
        ca,
        timeoutMs,
        caFileSet: !!target.caFile,
        alpn: alpnOffered(protocols),
        onExchange: (exchange) => exchanges.push(exchange),
        onVerified: (socket) => {
          const { host } = new URL(url);
          const evidence = tlsEvidenceOf(
            socket,
            field,
            host.includes(':') ? host : `${host}:443`,
            alpnOffered(protocols),
          );
          if (evidence) tls.push(evidence);
        },
      });
      return problem
        ? [{ url, field, stage: problem.stage, problem: problem.problem, fix: problem.fix }]
        : [];
    }),
  ).then((lists) => lists.flat());
  const blocking = found.filter((problem) => problem.field === 'baseUrl');
  const unavailable = found.filter((problem) => problem.field !== 'baseUrl');
  // What each verified host offers, so that a report can tell a run that left a protocol out.
  // An h2-only port offers HTTP/2 alone: HTTP/1.1 is then not a protocol the run left out.
  await Promise.all(
    tls.map(async (evidence) => {
      const url = target[evidence.field];
      if (url === undefined) return;
      const offered = await offeredProtocols(url, { hosts: target.hosts, ca, timeoutMs });
      evidence.protocols = offered.map((protocol) => PROTOCOL_NAME[protocol]);
    }),
  );
  // In the order the URLs are declared, whichever handshake ended first.
  tls.sort((a, b) => DECLARED_URLS.indexOf(a.field) - DECLARED_URLS.indexOf(b.field));
  exchanges.sort((a, b) => a.startedAt.localeCompare(b.startedAt));
  return {
    ok: blocking.length === 0,
    blocking,
    unavailable,
    ...(tls.length > 0 ? { tls } : {}),
    ...(exchanges.length > 0 ? { exchanges } : {}),
  };
}

/** The CA file the target names: the schema cannot check that it exists and holds a certificate. */
export function checkTargetFiles(target: Pick<ResolvedTarget, 'caFile' | 'file'>): PreflightProblem[] {
  const problems: PreflightProblem[] = [];
  if (target.caFile !== undefined) {
    const problem = caFileProblem(target.caFile);
    if (problem) {
      problems.push({
        url: target.caFile,
        stage: 'target file',
        problem: `caFile ${target.caFile} ${problem}`,
        fix: `set "caFile" in ${target.file} to the PEM file of the CA that signed the target's certificate (a path relative to the target file), or remove it if a public CA signed it`,
      });
    }
  }
  return problems;
}

function caFileProblem(file: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    return `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`;
  }
  const blocks = text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) return 'holds no PEM certificate (-----BEGIN CERTIFICATE-----)';
  try {
    blocks.forEach((block) => new X509Certificate(block));
  } catch {
    return 'holds a PEM block that is not a valid certificate';
  }
  return undefined;
}

/** The one-paragraph account of a problem, for the console and every report. */
export function describeProblem(problem: PreflightProblem): string {
  const where = problem.field ? `${problem.field} ${problem.url}` : problem.url;
  return `[${problem.stage}] ${where}: ${problem.problem}. Fix: ${problem.fix}.`;
}
