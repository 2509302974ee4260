// The conformance suite inside a team's own playwright.config.ts: `conformanceProjects()` returns
// the projects that check a target (a target file, a base URL, or the embedded reference server)
// beside the team's own, and `conformanceReporter()` the kit's reports as one more reporter.
// Everything is decided when the config is read: the options over the environment's variables
// resolve to the run's settings once (the rows of conformance/run-option-table.ts), which each
// project hands its workers as the `runSettings` option, and the reporter reads from the projects.
import { existsSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';
import type { Project, ReporterDescription } from '@playwright/test';
import { codeFile, nodeCommand } from '../kit/package-root.ts';
import {
  ENV,
  forgetHandOvers,
  handOversIgnoredWarning,
  inputEnvironment,
  setForWorkers,
} from '../conformance/env.ts';
import { resolveRunSettings, RUN_OPTIONS, UsageError, type RunSettings } from '../conformance/settings.ts';
import { caBundleFor } from '../conformance/requests/ca-trust.ts';
import type { Protocol } from '../conformance/requests/protocols.ts';
import { declareTarget, type Profile, type TargetDeclaration } from '../conformance/deployment/target.ts';
import {
  declareEmbeddedTarget,
  embeddedCertDir,
  fixtureKeyEnvironment,
} from '../conformance/deployment/embedded-target.ts';
import { URL_TARGET_FILE, isBaseUrl, urlTarget } from '../conformance/deployment/url-target.ts';
import { runStateDirectory, standaloneProjects } from '../conformance/run/projects.ts';

/** What the suite checks. */
export type ConformanceTarget =
  /** The reference server, started by each worker in-process (default). */
  | { embedded: true; certDir?: string }
  /** A target file (schemas/target.schema.json); its keys come from the variables it names. */
  | { file: string }
  /** A deployment by URL; keys from CONFORMANCE_KEY_* (README, "A target by URL"). */
  | { baseUrl: string; otherTenantBaseUrl?: string; sandboxBaseUrl?: string; caFile?: string };

export interface ConformanceProjectsOptions {
  /** Default: the embedded reference server. */
  target?: ConformanceTarget;
  /** `default` (HTTP-level rules warn) or `strict` (they fail); default: the target file's, else `default`. */
  profile?: Profile;
  /** The protocols every rule is checked over: a project each. Default h1 and h2 for the embedded reference, else h1. */
  protocols?: readonly Protocol[];
  /** How often one request is sent again after a transient answer (429, 502, 503, 504); default 4, 0 to 20. */
  maxRetries?: number;
  /** The most the whole run waits before retries, in seconds; default 60, 0 to 3600. */
  retryBudgetSeconds?: number;
  /** Never more than this many requests per second (default: as fast as the target allows; 0.1 to 10000). */
  maxRps?: number;
  /** The User-Agent of every request (default: those of common clients in turn: curl, a browser, python-requests, Go). */
  userAgent?: string;
  /** The longest one exchange may take, in seconds; default 10, at most 600. */
  requestTimeoutSeconds?: number;
  /** Pages of one tenant's list the run follows to learn its data, at most; default 10, 1 to 1000. */
  maxListPages?: number;
  /** Records of one tenant's list after which no further page is asked for; default 1000, 1 to 100000. */
  maxListRecords?: number;
  /** The projects' names: `conformance` (default), `conformance HTTP/2`, `conformance set-up`, … */
  name?: string;
  /**
   * An INCOMPLETE verdict fails the run too (exit 1), as `run --fail-on-incomplete` does: for lack
   * of an input, or under strict a partial run. Takes effect through `conformanceReporter()`,
   * which must be in the config. Default false: the tests alone decide.
   */
  failOnIncomplete?: boolean;
}

export interface ConformanceReporterOptions {
  /** Where conformance.json, .md, .html, junit.xml and exchanges.har go; default `reports/`. */
  outputDir?: string;
}

/** A row-checked option's value as the flag's text it stands for; a TypeError naming the option. */
function rowChecked(row: (typeof RUN_OPTIONS)[number], option: string, value: unknown): string {
  try {
    row.parse(String(value), option, '');
  } catch (error) {
    if (error instanceof UsageError)
      throw new TypeError(`conformanceProjects: ${error.message}`, { cause: error });
    throw error;
  }
  return String(value);
}

/**
 * The run's settings of a team's config: its options over the variables of `env` (an option wins,
 * as a flag does), each checked by its row of the table.
 */
function teamSettings(options: ConformanceProjectsOptions, env: NodeJS.ProcessEnv): Readonly<RunSettings> {
  if (options.profile !== undefined && options.profile !== 'default' && options.profile !== 'strict')
    throw new TypeError(
      `conformanceProjects: profile must be default or strict, not ${String(options.profile)}.`,
    );
  if (options.failOnIncomplete !== undefined && typeof options.failOnIncomplete !== 'boolean')
    throw new TypeError(
      `conformanceProjects: failOnIncomplete must be true or false, not ${String(options.failOnIncomplete)}.`,
    );
  const flags: Partial<Record<keyof RunSettings, string | boolean>> = {
    ...(options.profile !== undefined ? { profile: options.profile } : {}),
    ...(options.failOnIncomplete === true ? { failOnIncomplete: true } : {}),
  };
  for (const row of RUN_OPTIONS) {
    if (!('checked' in row.team) || row.team.checked !== 'by the row') continue;
    const option = row.team.option as keyof ConformanceProjectsOptions;
    const value = options[option];
    if (value !== undefined) flags[row.key] = rowChecked(row, option, value);
  }
  // An option's text is resolved as `run` resolves a flag's: it wins over the variable.
  return resolveRunSettings(flags, env);
}

/** The CA of the embedded reference must exist before any worker starts: Node reads its trust at start-up. */
function ensureEmbeddedCertificates(certDir: string): void {
  if (existsSync(join(certDir, 'ca.crt'))) return;
  const [command, ...args] = nodeCommand('conformance/run/embedded-in-worker');
  const made = spawnSync(command ?? process.execPath, [...args, certDir], {
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (made.status !== 0)
    throw new Error(
      `conformanceProjects: the embedded reference's certificates could not be made in ${certDir}: ${made.stderr}`,
    );
}

function declared(target: ConformanceTarget, profile: RunSettings['profile']): TargetDeclaration {
  if ('embedded' in target) {
    // The embedded target names its keys by variable, like any target: the fixtures' public test keys.
    setForWorkers(fixtureKeyEnvironment(), true);
    const certDir = target.certDir ? resolve(target.certDir) : embeddedCertDir(inputEnvironment());
    setForWorkers({ [ENV.referenceCertDir]: certDir });
    ensureEmbeddedCertificates(certDir);
    return declareEmbeddedTarget(inputEnvironment(), profile);
  }
  // A key not exported stops the conformance projects' set-up, not the config: a team runs its own
  // projects (`--project api`) without the conformance secrets.
  if ('file' in target)
    return declareTarget(resolve(target.file), inputEnvironment(), 'file', profile, { keysLater: true });
  for (const name of ['baseUrl', 'otherTenantBaseUrl', 'sandboxBaseUrl'] as const) {
    const value = target[name];
    if (value !== undefined && !isBaseUrl(value))
      throw new TypeError(
        `conformanceProjects: target.${name} must be a base URL https://{host}/v1, not "${value}".`,
      );
  }
  const file = join(runStateDirectory(), URL_TARGET_FILE);
  if (!existsSync(file)) {
    const options = { ...target, ...(target.caFile ? { caFile: resolve(target.caFile) } : {}) };
    writeFileSync(file, `${JSON.stringify(urlTarget(options, inputEnvironment()), null, 2)}\n`);
  }
  return declareTarget(file, inputEnvironment(), 'file', profile);
}

/** Whether this process has removed the hand-overs of the environment it was started in. */
let handOversForgotten = false;

/**
 * In the Playwright runner, which reads the config first: what a run's processes hand each other
 * (the run's state directory, a preflight's result, …) is never taken from the environment the
 * runner was started in. Done once, before this process sets any of its own (a config may call
 * conformanceProjects more than once). The workers, which Playwright numbers, read the config
 * again and find the runner's own values.
 */
function forgetHandOversInTheRunner(): void {
  if (handOversForgotten || inputEnvironment().TEST_WORKER_INDEX !== undefined) return;
  handOversForgotten = true;
  const ignored = forgetHandOvers();
  if (ignored.length > 0) console.error(handOversIgnoredWarning(ignored));
}

/**
 * The conformance projects for a team's playwright.config.ts: a set-up project (the preflight, and
 * the keys a target file asks to mint), one project per protocol with every rule as a test named
 * by its id (level and source as annotations, evidence attached), and a teardown project. A MUST
 * rule that fails fails its test (under `strict`, an HTTP rule too); any other failure is a
 * `warning` annotation on a passing test. Throws TargetError for an invalid target file.
 */
export function conformanceProjects(options: ConformanceProjectsOptions = {}): Project[] {
  forgetHandOversInTheRunner();
  // The team's config is its run's entry point: its options and the environment resolve here.
  return kitProjects(options, teamSettings(options, inputEnvironment()));
}

/**
 * conformanceProjects() for the kit's own config (playwright.config.ts), whose runner the `run`
 * command starts with the settings it resolved and the hand-overs it made itself (the outcome
 * file), having removed the user's.
 */
export function kitProjects(
  options: ConformanceProjectsOptions,
  settings: Readonly<RunSettings>,
  kit: { failedRulesKeepWorker?: boolean } = {},
): Project[] {
  const target = options.target ?? { embedded: true };
  const protocols = options.protocols ?? ('embedded' in target ? ['h1', 'h2'] : ['h1']);
  if (protocols.length === 0 || protocols.some((protocol) => protocol !== 'h1' && protocol !== 'h2'))
    throw new TypeError(`conformanceProjects: protocols must be h1, h2 or both, not ${protocols.join(',')}.`);
  const declaredTarget = declared(target, settings.profile);
  // First: it makes the run's state directory (and writes what a new one starts with).
  const projects = standaloneProjects({
    declaredTarget,
    protocols: [...new Set(protocols)],
    settings,
    prefix: options.name ?? 'conformance',
    ...kit,
  });
  // Read by Node once at start-up, and not a setting of the run but the trust of the process: set
  // here, in the runner, it reaches the worker processes.
  const caBundle = caBundleFor(declaredTarget.caFile, runStateDirectory(), inputEnvironment());
  if (caBundle) setForWorkers({ NODE_EXTRA_CA_CERTS: caBundle });
  return projects;
}

/**
 * The kit's own reports of the conformance projects (verdict table, conformance.json/.md/.html,
 * junit.xml, exchanges.har; bundle/ under strict), as a reporter to list in the config. List it
 * first: it also masks keys in the results before the other reporters see them. It never changes
 * the run's status: the team's tests and the rules' tests decide it. With `--list`, it lists the
 * rules selected and writes nothing.
 */
export function conformanceReporter(options: ConformanceReporterOptions = {}): ReporterDescription {
  // `npx playwright test --list` runs no rule: it prints the rules selected and writes no report,
  // so the last run's stay as they were (as the `run` command's --list does).
  if (process.argv.includes('--list')) return [codeFile('conformance/run/list-reporter')];
  // The team's config is the entry point: the environment's settings resolve here (the rule
  // projects' own, with the team's options, win in a run).
  const settings = resolveRunSettings({}, inputEnvironment());
  return [
    codeFile('conformance/run/reporter'),
    {
      outputDir: resolve(options.outputDir ?? settings.reportDirectory),
      decidesStatus: false,
      // A merge of the team's shards has no rule projects to take the settings from.
      settings,
    },
  ];
}
