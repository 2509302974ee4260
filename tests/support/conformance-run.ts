// Runs the conformance suite the way a user does (`tenant-auth-conformance run`, compiled as the
// package installs it: compiled-kit.ts) and reads back what happened to each rule from
// Playwright's JSON report.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { readTargetFile } from '../../conformance/deployment/target.ts';
import { EMBEDDED_TARGET_FILE } from '../../conformance/deployment/embedded-target.ts';
import { readReport, runBounded, type SuiteRun } from '../../mutation/suite-run.ts';
import { KIT_BIN, nodeArguments } from './compiled-kit.ts';
import assert from 'node:assert/strict';
import { ENV } from '../../conformance/env.ts';
import type { ConformanceReport } from '../../schemas/generated/conformance-report.ts';
import type { TestServer } from './reference-client.ts';
import { scratchDirectory } from './scratch.ts';

export { REPO_ROOT, runBounded, type BoundedRun } from '../../mutation/suite-run.ts';

export interface RuleOutcome {
  ruleId: string;
  /** Playwright's final status: passed, failed, skipped, timedOut, interrupted. */
  status: string;
  annotations: { type: string; description?: string }[];
  errors: string[];
  /** The Playwright worker the last try ran in: a new one after every unexpected failure. */
  workerIndex: number;
  /** How Playwright's own reports count the test: expected, unexpected, flaky or skipped. */
  playwrightOutcome: string;
}

export interface ConformanceRun extends SuiteRun {
  outcomes: RuleOutcome[];
}

interface JsonReport {
  suites?: JsonSuite[];
}
interface JsonSuite {
  suites?: JsonSuite[];
  specs?: {
    tags: string[];
    tests: {
      status: string;
      annotations: RuleOutcome['annotations'];
      results: { status: string; workerIndex: number; errors: { message?: string }[] }[];
    }[];
  }[];
}

/**
 * The environment of a run over what the target offers by ALPN, as a user's run without
 * `--protocols` is: `runConformance` otherwise runs over HTTP/1.1 alone (see there).
 */
export const OVER_OFFERED_PROTOCOLS: NodeJS.ProcessEnv = { [ENV.protocols]: undefined };

/**
 * Runs `tenant-auth-conformance run` (compiled) with `args`; bounded by `timeoutMs`. With one
 * Playwright worker unless `args` name `--workers`. Over
 * HTTP/1.1 alone unless `args` name `--protocols` or `env` names `CONFORMANCE_PROTOCOLS` (even as
 * undefined: OVER_OFFERED_PROTOCOLS): the reference offers HTTP/2 too, and most tests are about
 * something else than the protocol — a run over both takes twice the requests.
 */
export async function runConformance(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  timeoutMs = 180_000,
): Promise<ConformanceRun> {
  const jsonReport = join(scratchDirectory('playwright-json-'), 'playwright.json');
  const protocolsChosen = args.some((arg) => arg.startsWith('--protocols')) || ENV.protocols in env;
  const workersChosen = args.some((arg) => arg.startsWith('--workers'));
  const run = await runSuite(
    // One worker unless a test asks for more: a second one is a process start (seconds of CPU) that
    // the tests, three files at a time on two cores, would only wait for.
    workersChosen ? args : [...args, '--workers=1'],
    {
      PLAYWRIGHT_JSON_OUTPUT_NAME: jsonReport,
      ...(protocolsChosen ? {} : { [ENV.protocols]: 'h1' }),
      ...env,
    },
    timeoutMs,
  );
  let outcomes: RuleOutcome[] = [];
  try {
    outcomes = outcomesOf(JSON.parse(readFileSync(jsonReport, 'utf8')) as JsonReport);
  } catch {
    // No report: the run failed before Playwright started; exitCode and stderr tell why.
  }
  rmSync(dirname(jsonReport), { recursive: true, force: true });
  return { ...run, outcomes };
}

/**
 * The compiled kit's `run` with `args`, its reports in a fresh directory; bounded by `timeoutMs`.
 * The campaign's runSuite (mutation/suite-run.ts) runs the command the same way from the sources.
 */
async function runSuite(args: string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<SuiteRun> {
  const reportDir = scratchDirectory('conformance-run-');
  const run = await runBounded(
    process.execPath,
    [...nodeArguments(KIT_BIN), 'run', ...args],
    { CONFORMANCE_REPORT_DIR: reportDir, ...env },
    timeoutMs,
  );
  return { ...run, reportDir, report: readReport(join(reportDir, 'conformance.json')) };
}

function outcomesOf(report: JsonReport): RuleOutcome[] {
  const outcomes: RuleOutcome[] = [];
  const visit = (suite: JsonSuite): void => {
    suite.suites?.forEach(visit);
    for (const spec of suite.specs ?? []) {
      // The set-up project's test is the run's, not a rule's.
      if (spec.tags[0] === undefined) continue;
      for (const test of spec.tests) {
        const last = test.results.at(-1);
        // Listed but never run: its set-up failed (a failed preflight runs no rule).
        if (!last) continue;
        outcomes.push({
          ruleId: (spec.tags[0] ?? '').replace(/^@/, ''),
          status: last.status,
          annotations: test.annotations,
          errors: last.errors.map((error) => error.message ?? ''),
          workerIndex: last.workerIndex,
          playwrightOutcome: test.status,
        });
      }
    }
  };
  report.suites?.forEach(visit);
  return outcomes;
}

/**
 * fixtures/reference-target.json for a reference server listening on `ports`: every URL and
 * credential of the embedded target, with `extra` (the CA file, the host map) added by the caller.
 */
export function referenceTargetOn(
  ports: { https: string | number; http: string | number },
  extra: object,
): object {
  // Its schema and CA paths are relative to fixtures/, and the host map is the caller's choice:
  // only its URLs (with these ports) and its credentials are taken.
  const embedded = readTargetFile(EMBEDDED_TARGET_FILE);
  const required = (url: string | undefined): string => url ?? '';
  const on = (url: string, port: string | number): string => {
    const parsed = new URL(url);
    parsed.port = String(port);
    return parsed.toString().replace(/\/$/, '');
  };
  return {
    baseUrl: on(embedded.baseUrl, ports.https),
    otherTenantBaseUrl: on(required(embedded.otherTenantBaseUrl), ports.https),
    sandboxBaseUrl: on(required(embedded.sandboxBaseUrl), ports.https),
    plainHttpBaseUrl: on(required(embedded.plainHttpBaseUrl), ports.http),
    credentials: embedded.credentials,
    ...extra,
  };
}

/**
 * The target file of a test server this process started (reference-client.ts), in a folder of its
 * own: the embedded target's URLs on the server's ports, its CA, and *.localhost sent to loopback.
 * Returns the file's path.
 */
export function writeTargetOf(server: TestServer, name: string): string {
  const file = join(scratchDirectory('test-server-target-'), 'target.json');
  const ports = { https: server.server.httpsPort, http: server.server.httpPort ?? 0 };
  const target = referenceTargetOn(ports, {
    name,
    caFile: join(server.certDir, 'ca.crt'),
    hosts: { '*.localhost': '127.0.0.1' },
  });
  writeFileSync(file, JSON.stringify(target));
  return file;
}

type ReportedRule = ConformanceReport['rules'][number];

/**
 * The rules of a run by id, after asserting that each of `served` passed: the runs through a front
 * that refuses some requests check that the rules it let through were judged on the deployment.
 */
export function rulesAfterServed(run: SuiteRun, served: readonly string[]): Map<string, ReportedRule> {
  const byId = new Map(run.report?.rules.map((rule) => [rule.id, rule]));
  for (const id of served)
    assert.equal(byId.get(id)?.verdict, 'pass', `${id}: ${byId.get(id)?.message ?? ''}`);
  return byId;
}
