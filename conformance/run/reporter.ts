// The conformance reporter: a line per rule while the run goes, then the verdict table; writes
// conformance.json (schemas/conformance-report.schema.json), conformance.md, conformance.html,
// junit.xml and exchanges.har (report/write-reports.ts); and decides the exit code from the
// verdict.
//
// It is listed first among the reporters because it also redacts in place: Playwright records
// request headers — keys included — in the call log of a failed API call, attaches that log to
// the step, and offers no redaction. Reporters share the result objects and are called in order,
// so masking them here, before the HTML and blob reporters see them, keeps every artifact free of
// keys (each key shown as its variable's name, conformance/redaction/shown-keys.ts).
// tests/conformance/report/secrets.test.ts proves it by searching every file a run writes.
// Messages from the workers carry colour codes (Playwright forces colour there): they are
// stripped before anything is recorded or printed.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import type {
  FullConfig,
  FullResult,
  Reporter,
  Suite,
  TestCase,
  TestError,
  TestResult,
  TestStep,
} from '@playwright/test/reporter';
import { buildReport } from '../report/build-report.ts';
import { colourWanted, paint, ruleLine, summary } from '../report/console.ts';
import { PREFLIGHT, type RunExchange } from '../report/har.ts';
import { ruleVerdict, type TestOutcome } from '../report/verdict.ts';
import { writeReports } from '../report/write-reports.ts';
import { ruleById, type RuleId } from '../catalog/rules.ts';
import { KeyNamer, keyNamerFor } from '../redaction/shown-keys.ts';
import { bindTarget, declaredTargetOf, runMetadataOf } from './run-target.ts';
import { kitProjectRole } from './projects.ts';
import { readProjectState } from './project-state.ts';
import { PROTOCOL_NAME, type Protocol } from '../requests/protocols.ts';
import type { Profile, TargetDeclaration } from '../deployment/target.ts';
import { EXIT_CODE, exitCodeFor } from '../report/verdict.ts';
import { ENV } from '../env.ts';
import { pacedRateOfRun, preflightFromEnvironment } from './preflight-state.ts';
import { retriesByRule, trafficOf } from '../report/traffic-summary.ts';
import { explainFrontRefusals } from '../report/front-refusals.ts';
import { OutcomesByProtocol } from '../report/outcomes-by-protocol.ts';
import { ANNOTATION } from './annotations.ts';
import { KEYLESS_RULE, LeaksSeen } from './leaks-seen.ts';
import { protocolsOfRun } from '../requests/protocols.ts';
import { runSettings, type RunSettings } from '../settings.ts';
import type { RecordedExchange } from '../requests/exchange-record.ts';
import type { RunMetadata } from '../report/run-metadata.ts';
import { writeBundle } from '../attestation/bundle.ts';
import { BUNDLE_DIRECTORY } from '../attestation/bundle-files.ts';
import { badgeMarkdown } from '../attestation/badge.ts';
import type { ConformanceReport, TlsEvidence } from '../../schemas/generated/conformance-report.ts';
import { KeyFileError } from '../attestation/signing-key.ts';
import { bundleSettings } from './attestation-options.ts';
import { scopeOf, type ScopeSettings } from '../report/scope.ts';
import {
  optionsOfSettings,
  settingsOfShards,
  shardDisagreements,
  shardRecordFile,
  shardRecordOf,
  shardsWithoutRecord,
  type ShardRecord,
} from '../report/shard-records.ts';
import { RULES } from '../catalog/rules.ts';

const LEARNING = "learning the tenants' data (before the checks)";

export default class ConformanceReporter implements Reporter {
  #namerOfRun: KeyNamer | undefined;
  #declaredTarget: TargetDeclaration | undefined;
  #metadata: RunMetadata | undefined;
  /** The verdict is INCOMPLETE and the run was told to fail on it. */
  #incompleteFails = false;
  #shard: string | undefined;
  #playwrightSettings: { retries: number; repeatEach: number } | undefined;
  #selection: { grep?: string; grepInvert?: string } = {};
  /** A shard's own record, left beside its blob once every reporter has ended (onExit). */
  #shardRecord: ShardRecord | undefined;
  #startedAt = new Date();
  readonly #painter = paint(colourWanted(process.stdout));
  /** Each rule's outcomes, by the protocol its project spoke ('' when the run has one project). */
  readonly #outcomes = new OutcomesByProtocol();
  readonly #leaks = new LeaksSeen();
  readonly #selected = new Set<string>();
  /** What the rule projects' processes hand each other (their shared files); never a setting. */
  #runEnvironment: Readonly<Record<string, string>> = {};
  /**
   * The run's settings, as the entry point resolved them: the rule projects' (`runSettings`), as
   * their workers used them; with no rule project (a merge), the config's, given as an option.
   */
  #runSettings: Readonly<RunSettings>;
  /**
   * The rules selected over each protocol (by the project their tests are in): a protocol was
   * checked only if every selected rule was selected over it. A shard or a --grep that takes one
   * protocol's project alone checked that protocol only.
   */
  readonly #selectedOver = new Map<string, Set<string>>();
  /**
   * The rules each protocol was checked for, by what each rule's test said it ran over
   * (ANNOTATION.protocol): in a merge, whose blobs keep no project option, this is the evidence.
   */
  readonly #ranOver = new Map<string, Set<string>>();
  /** Lists not followed to their end (ANNOTATION.listCut). */
  readonly #listsCut = new Set<string>();
  /** What each shard's tests reached and saw, by shard ('' unsharded): a merge judges shards by it. */
  readonly #seenByShard = new Map<string, { origins: Set<string>; tls?: TlsEvidence[] }>();
  #maxFailures = 0;
  /** How many different targets the rule projects declare: one, or the run is not one target's. */
  #targetsChecked = 1;
  readonly #exchanges: RunExchange[] = [];
  readonly #secondsByRule = new Map<string, number>();
  readonly #runErrors: string[] = [];
  readonly #outputDir: string;
  readonly #decidesStatus: boolean;
  /** Each rule project's label in the reports: its protocol when the run has several, else none. */
  #labels = new Map<string, string>();

  /**
   * `decidesStatus`: the verdict, not Playwright's count of failed tests, sets the run's status
   * (the `run` command). In a team's config (library/playwright.ts) it is false: the team's own
   * tests count as much as the rules.
   */
  constructor(
    options: { outputDir?: string; decidesStatus?: boolean; settings?: Readonly<RunSettings> } = {},
  ) {
    this.#runSettings = options.settings ?? runSettings();
    this.#outputDir = resolve(options.outputDir ?? this.#runSettings.reportDirectory);
    this.#decidesStatus = options.decidesStatus ?? true;
  }

  printsToStdio(): boolean {
    return true;
  }

  onBegin(config: FullConfig, suite: Suite): void {
    // A team's config also holds projects of its own: the rule projects are those with a target.
    const ruleProjects = config.projects.filter(
      (project) => declaredTargetOf(project) !== undefined && kitProjectRole(project) === undefined,
    );
    this.#declaredTarget = declaredTargetOf(ruleProjects[0]);
    // One report is one target's: rule projects of several targets (a team's config with two
    // conformanceProjects) would mix their outcomes under the first one's name.
    // The settings each rule project hands its workers are part of what it checks: the report
    // states the first one's, so projects of other settings are another run.
    this.#targetsChecked = new Set(
      ruleProjects.map((project) =>
        JSON.stringify([
          declaredTargetOf(project),
          (project.use as { runSettings?: unknown } | undefined)?.runSettings ?? {},
        ]),
      ),
    ).size;
    if (this.#targetsChecked > 1)
      this.#runErrors.push(
        `the rule projects check ${this.#targetsChecked} different targets (or one with different settings), but a report (and its certificate) is one target's under one set of settings: run each with a reporter of its own`,
      );
    // A config hands the run's settings to its rule projects (conformanceProjects): the report
    // states those, as the workers used them.
    this.#runSettings =
      (ruleProjects[0]?.use as { runSettings?: Readonly<RunSettings> } | undefined)?.runSettings ??
      this.#runSettings;
    this.#runEnvironment =
      (ruleProjects[0]?.use as { runEnvironment?: Readonly<Record<string, string>> } | undefined)
        ?.runEnvironment ?? {};
    this.#metadata =
      (config.metadata as { conformance?: RunMetadata }).conformance ??
      (this.#declaredTarget &&
        runMetadataOf(this.#declaredTarget, false, process.env, this.#runSettings));
    for (const project of ruleProjects) {
      const protocol = (project.use as { protocol?: Protocol }).protocol ?? 'h1';
      this.#labels.set(project.name, ruleProjects.length > 1 ? PROTOCOL_NAME[protocol] : '');
    }
    this.#shard = config.shard ? `${config.shard.current}/${config.shard.total}` : undefined;
    // The rule projects' own retries and repeats: in a team's config the first project may be the
    // team's, retried otherwise. Where the rule projects differ, the most retries and fewest
    // repeats any rule ran under.
    const judged = ruleProjects.length > 0 ? ruleProjects : config.projects;
    if (judged.length > 0)
      this.#playwrightSettings = {
        retries: Math.max(...judged.map((project) => project.retries)),
        repeatEach: Math.min(...judged.map((project) => project.repeatEach)),
      };
    this.#maxFailures = config.maxFailures;
    this.#selection = selectionOf(config);
    for (const test of suite.allTests()) {
      const ruleId = ruleIdOf(test);
      if (!ruleId) continue;
      this.#selected.add(ruleId);
      const protocol =
        PROTOCOL_NAME[(test.parent.project()?.use as { protocol?: Protocol }).protocol ?? 'h1'];
      const over = this.#selectedOver.get(protocol) ?? new Set<string>();
      this.#selectedOver.set(protocol, over.add(ruleId));
    }
    const profile = this.#metadata?.profile ?? 'default';
    if (this.#preflightStopped() || this.#settings().preflightOnly) return;
    console.log(
      `Conformance run: ${suite.allTests().filter((test) => ruleIdOf(test) !== undefined).length} checks of ${this.#metadata?.target.name ?? 'the target'}, profile ${profile}\n`,
    );
  }

  /** An error outside any test (global setup, a broken config): the run cannot be trusted. */
  onError(error: TestError): void {
    // The preflight stopped the run on purpose, and has printed why.
    if (this.#preflightStopped()) return;
    this.#redactError(error);
    const message = stripVTControlCharacters(error.message ?? String(error.value ?? 'unknown error'));
    this.#runErrors.push(message);
    console.error(`Run error: ${message}`);
  }

  onStepEnd(_test: TestCase, _result: TestResult, step: TestStep): void {
    if (step.error) this.#redactError(step.error);
  }

  /**
   * What the set-up and teardown projects print (the preflight's findings), for the `run` command,
   * whose console this reporter owns. In a team's config the team's reporters show it.
   */
  onStdOut(chunk: string | Buffer, test: TestCase | undefined): void {
    if (this.#decidesStatus && kitProjectRole(test?.parent.project()) !== undefined)
      process.stdout.write(this.#namer().show(chunk.toString()));
  }

  onStdErr(chunk: string | Buffer, test: TestCase | undefined): void {
    if (this.#decidesStatus && kitProjectRole(test?.parent.project()) !== undefined)
      process.stderr.write(this.#namer().show(chunk.toString()));
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    result.errors.forEach((error) => this.#redactError(error));
    if (result.error) this.#redactError(result.error);
    for (const output of [result.stdout, result.stderr]) {
      output.forEach((chunk, index) => (output[index] = this.#namer().show(chunk.toString())));
    }
    if (kitProjectRole(test.parent.project()) !== undefined) {
      // The set-up project has left its state, minted keys and all: the namer is made again with them.
      this.#namerOfRun = undefined;
      this.#preflightSeen(result);
      return this.#kitTestEnded(result);
    }
    const ruleId = ruleIdOf(test);
    if (!ruleId) return;
    const ranOver = annotationOf(result, ANNOTATION.protocol);
    if (ranOver !== undefined)
      this.#ranOver.set(ranOver, (this.#ranOver.get(ranOver) ?? new Set()).add(ruleId));
    for (const annotation of result.annotations)
      if (annotation.type === ANNOTATION.listCut && annotation.description)
        this.#listsCut.add(annotation.description);
    this.#collectExchanges(ruleId, result);
    this.#secondsByRule.set(ruleId, (this.#secondsByRule.get(ruleId) ?? 0) + result.duration / 1000);
    const outcome = this.#outcomeOf(test, result);
    const project = test.parent.project()?.name ?? '';
    const label = this.#labels.get(project) ?? project;
    // Outcomes are kept by the protocol the test says it ran over (a merge of shards of one
    // protocol each has two unnamed projects), by its project otherwise.
    this.#leaks.learned(ranOver ?? label, result);
    // A retry after a try that leaked does not replace it (leaks-seen.ts).
    const standing = this.#leaks.standing(ranOver ?? label, test.id, outcome, result.retry);
    if (standing === outcome) this.#outcomes.add(ranOver ?? label, ruleId, outcome, result.retry > 0);
    const rule = ruleById(ruleId as RuleId);
    const shown = label ? { ...rule, id: `${rule.id} (${label})` } : rule;
    console.log(ruleLine({ ...shown, verdict: ruleVerdict([standing]).verdict }, this.#painter));
  }

  /**
   * The set-up or teardown project's test: when it fails for another reason than a preflight that
   * did not pass (which the verdict, SETUP ERROR, tells), the run did not complete — as when keys
   * could not be minted or revoked.
   */
  #kitTestEnded(result: TestResult): void {
    if (result.status === 'passed' || result.status === 'skipped' || this.#preflightStopped()) return;
    const message = stripVTControlCharacters(
      result.errors[0]?.message ?? `the set-up ended ${result.status}`,
    );
    this.#runErrors.push(message);
    console.error(`Run error: ${message}`);
  }

  async onEnd(result: FullResult): Promise<{ status: FullResult['status'] } | undefined> {
    const status = await this.#end(result);
    if (this.#decidesStatus) return status;
    // In a team's config the tests decide, but an INCOMPLETE verdict that the run was told to fail
    // on (conformanceProjects' failOnIncomplete) fails it, which no test can say.
    return this.#incompleteFails && result.status === 'passed' ? { status: 'failed' } : undefined;
  }

  #end(result: FullResult): Promise<{ status: FullResult['status'] }> {
    const metadata = this.#metadata ?? {
      target: { name: 'unknown', mode: 'file', baseUrl: '' },
      profile: 'default' as Profile,
      failOnIncomplete: false,
    };
    const preflight = preflightFromEnvironment();
    if (this.#settings().preflightOnly) {
      // Only the preflight ran, and it has printed what it found: the reports of an earlier run
      // stay as they are.
      const reached = preflight?.ok === true;
      console.log(
        reached
          ? 'Preflight passed: the target can be reached. No rule was run (--preflight-only).'
          : 'Preflight failed (see above): fix the set-up, then run again. No rule was run (--preflight-only).',
      );
      this.#writeOutcome(
        reached ? 'PREFLIGHT PASSED' : 'SETUP ERROR',
        reached ? EXIT_CODE.ok : EXIT_CODE.setup,
      );
      return Promise.resolve({ status: reached ? 'passed' : 'failed' });
    }
    // Set for the run, or for the merge of its shards.
    const failOnIncomplete = metadata.failOnIncomplete || this.#settings().failOnIncomplete;
    const shards = this.#judgedShards(shardRecordsOfMerge());
    // A merge ran no rule: the settings the run ran under are its shards' (shard-records.ts).
    const shardSettings = this.#shard ? undefined : settingsOfShards(shards);
    // A merge's certificates are those its shards' set-up tests saw, never their records'.
    const tls = preflight?.tls ?? this.#tlsSeen();
    for (const { protocol, outcome } of this.#leaks.learningFailures()) {
      if (this.#selected.has(KEYLESS_RULE)) this.#outcomes.add(protocol, KEYLESS_RULE, outcome, false);
      else this.#runErrors.push(outcome.failure?.message ?? 'a keyless request was served data');
    }
    const report = buildReport(explainFrontRefusals(this.#outcomes.byRule(), this.#exchanges), {
      target: metadata.target,
      profile: metadata.profile,
      startedAt: result.startTime ?? this.#startedAt,
      durationMs: result.duration,
      ...(this.#shard ? { shard: this.#shard } : {}),
      setupProblems: preflight ? [...preflight.blocking, ...preflight.unavailable] : [],
      setupError: preflight !== undefined && !preflight.ok,
      retriesByRule: retriesByRule(this.#exchanges),
      traffic: trafficOf(this.#exchanges, pacedRateOfRun()),
      ...(this.#outcomes.protocols().length > 1 ? { byProtocol: this.#outcomes.byProtocol() } : {}),
      runProtocols: protocolsOfRun(this.#settings()).map((protocol) => PROTOCOL_NAME[protocol]),
      notOffered: this.#settings().protocolsNotOffered.map((protocol) => PROTOCOL_NAME[protocol]),
      options: {
        failOnIncomplete,
        ...(shardSettings
          ? optionsOfSettings(shardSettings)
          : {
              requestTimeoutSeconds: this.#settings().requestTimeoutMs / 1000,
              ...trafficOptions(this.#settings()),
              ...this.#playwrightSettings,
            }),
        selectedRules: this.#selected.size,
      },
      ...(tls.length > 0 ? { tls } : {}),
      scope: scopeOf({
        ...this.#protocolsCovered(
          metadata.protocols ??
            (this.#outcomes.protocols().length > 1 ? this.#outcomes.protocols() : [PROTOCOL_NAME.h1]),
        ),
        tls,
        ...(metadata.target.hosts ? { hostMap: metadata.target.hosts } : {}),
        rulesSelected: this.#selected.size,
        rulesInCatalog: RULES.length,
        ...this.#selection,
        shards: this.#shard ? [this.#shard] : shards.map((shard) => shard.shard),
        listsCut: [...this.#listsCut].sort(),
        settings: shardSettings ?? this.#scopeSettings(),
        shardProblems: shardDisagreements(shards),
        shardsWithoutRecord: shardsWithoutRecord(shards),
      }),
      ...(shards.length > 0 ? { shards } : {}),
    });
    if (this.#shard) this.#shardRecord = shardRecordOf(report);
    const files = writeReports(
      report,
      { exchanges: this.#exchanges, secondsByRule: this.#secondsByRule },
      this.#outputDir,
    );
    const reportFiles = [...files.map((file, index) => (index === 0 ? file : basename(file))), 'html/'];
    console.log(summary(report, { selected: this.#selected, reportFiles, painter: this.#painter }));
    this.#writeBundleIfWanted(report);
    if (this.#runErrors.length > 0) console.error(`The run did not complete: ${this.#runErrors.join('; ')}`);
    // The verdict, not Playwright's count of failed tests, decides the exit code; a run that broke
    // outside the tests, or was interrupted, cannot be trusted.
    const broken =
      this.#runErrors.length > 0 || result.status === 'interrupted' || result.status === 'timedout';
    const exitCode = broken ? EXIT_CODE.setup : exitCodeFor(report, failOnIncomplete);
    this.#writeOutcome(report.verdict, exitCode);
    this.#incompleteFails = report.verdict === 'INCOMPLETE' && exitCode !== EXIT_CODE.ok;
    const status =
      result.status === 'interrupted' || result.status === 'timedout'
        ? result.status
        : exitCode === EXIT_CODE.ok
          ? 'passed'
          : 'failed';
    return Promise.resolve({ status });
  }

  /**
   * After every reporter's onEnd: the blob reporter empties its folder when it writes the blob, so
   * the shard's record is put beside the blob only now.
   */
  onExit(): Promise<void> {
    if (!this.#shardRecord) return Promise.resolve();
    const blob = join(this.#outputDir, 'blob');
    mkdirSync(blob, { recursive: true });
    writeFileSync(
      join(blob, shardRecordFile(this.#shardRecord.shard)),
      `${JSON.stringify(this.#shardRecord, null, 2)}\n`,
    );
    return Promise.resolve();
  }

  /** bundle/ (conformance/attestation/): with --bundle or --sign-key, and by default under strict. */
  /** The run's settings as its rules ran under them. */
  #settings(): Readonly<RunSettings> {
    return this.#runSettings;
  }

  /**
   * The protocols every selected rule was checked over, and how many rules a protocol checked for
   * some but not all were. Counted from what each test said it ran over; only a run whose tests say
   * nothing (blobs of an earlier kit) falls back to its projects.
   */
  #protocolsCovered(runProtocols: readonly string[]): {
    protocolsChecked: string[];
    rulesChecked?: Record<string, number>;
  } {
    if (this.#ranOver.size === 0)
      return {
        protocolsChecked: runProtocols.filter(
          (protocol) => this.#selectedOver.get(protocol)?.size === this.#selected.size,
        ),
      };
    const selected = (rules: ReadonlySet<string>): number =>
      [...rules].filter((rule) => this.#selected.has(rule)).length;
    const counts = [...this.#ranOver].map(([protocol, rules]) => [protocol, selected(rules)] as const);
    const protocolsChecked = [PROTOCOL_NAME.h1, PROTOCOL_NAME.h2].filter((protocol) =>
      counts.some(([name, count]) => name === protocol && count === this.#selected.size),
    );
    const some = counts.filter(([, count]) => count > 0 && count < this.#selected.size);
    return { protocolsChecked, ...(some.length > 0 ? { rulesChecked: Object.fromEntries(some) } : {}) };
  }

  /** Every setting of the run that can change a verdict (report/scope.ts, scope.settings). */
  #scopeSettings(): ScopeSettings {
    const settings = this.#settings();
    return {
      retries: this.#playwrightSettings?.retries ?? 0,
      repeatEach: this.#playwrightSettings?.repeatEach ?? 1,
      maxRetries: settings.maxRetries,
      retryBudgetSeconds: settings.retryBudgetMs / 1000,
      requestTimeoutSeconds: settings.requestTimeoutMs / 1000,
      ...(settings.maxRps !== undefined ? { maxRequestsPerSecond: settings.maxRps } : {}),
      maxListPages: settings.maxListPages,
      maxListRecords: settings.maxListRecords,
      ...(this.#maxFailures > 0 ? { maxFailures: this.#maxFailures } : {}),
    };
  }

  /** The certificates the set-up tests saw (a merge: every shard's), each host's once. */
  #tlsSeen(): TlsEvidence[] {
    const all = [...this.#seenByShard.values()].flatMap((seen) => seen.tls ?? []);
    return all.filter(
      (tls, index) =>
        all.findIndex((other) => other.host === tls.host && other.fingerprint256 === tls.fingerprint256) ===
        index,
    );
  }

  /** The shard's evidence, made on first use. */
  #seenIn(shard: string): { origins: Set<string>; tls?: TlsEvidence[] } {
    const seen = this.#seenByShard.get(shard) ?? { origins: new Set<string>() };
    this.#seenByShard.set(shard, seen);
    return seen;
  }

  /** The set-up test's attachments: the certificates and protocols its preflight saw, and its requests. */
  #preflightSeen(result: TestResult): void {
    const sent = result.attachments.find(
      (attachment) => attachment.name === ANNOTATION.preflightExchanges,
    )?.body;
    if (sent)
      for (const exchange of showEveryString(
        JSON.parse(sent.toString('utf8')),
        this.#namer(),
      ) as RecordedExchange[])
        this.#exchanges.push({ madeBy: PREFLIGHT, exchange });
    const body = result.attachments.find((attachment) => attachment.name === ANNOTATION.preflightTls)?.body;
    if (!body) return;
    this.#seenIn(annotationOf(result, ANNOTATION.shard) ?? '').tls = JSON.parse(
      body.toString('utf8'),
    ) as TlsEvidence[];
  }

  /**
   * In a merge: each shard's record with what its blob shows it reached and saw (`seen`), which
   * shardDisagreements holds against the record and against the other shards. A record edited to
   * name another target than its exchanges went to is caught here, and by `verify`.
   */
  #judgedShards(records: readonly ShardRecord[]): ShardRecord[] {
    // A shard's own run is judged when its blob is merged.
    if (this.#shard) return [...records];
    const judged = records.map((record) => {
      const seen = this.#seenByShard.get(record.shard);
      return {
        ...record,
        seen: {
          origins: [...(seen?.origins ?? [])].sort(),
          tls: (seen?.tls ?? []).map(({ host, fingerprint256 }) => ({ host, fingerprint256 })),
        },
      };
    });
    const recorded = new Set(records.map((record) => record.shard));
    const unrecorded = [...this.#seenByShard.keys()].filter((shard) => shard !== '' && !recorded.has(shard));
    for (const shard of unrecorded)
      this.#runErrors.push(`the blobs hold results of shard ${shard}, but no record of it was gathered`);
    for (const disagreement of shardDisagreements(judged)) console.error(`Warning: ${disagreement}`);
    return judged;
  }

  #writeBundleIfWanted(report: ConformanceReport): void {
    let settings: ReturnType<typeof bundleSettings>;
    try {
      settings = bundleSettings(report.profile, this.#settings());
    } catch (error) {
      // The runner checked the key before the run; merge, or a key file gone since, ends here.
      if (!(error instanceof KeyFileError)) throw error;
      console.error(`No bundle written: ${error.message}`);
      return;
    }
    if (!settings.wanted) return;
    if (this.#targetsChecked > 1) {
      // Not even an earlier run's bundle may stay beside these reports.
      rmSync(join(this.#outputDir, BUNDLE_DIRECTORY), { recursive: true, force: true });
      console.error(
        `No bundle written: the rules of ${this.#targetsChecked} targets (or settings) were run as one.`,
      );
      return;
    }
    const bundle = writeBundle(report, this.#outputDir, settings.signingKey);
    console.log(
      [
        `Bundle: ${bundle.directory} (${bundle.signedBy ? `signed by key ${bundle.signedBy}` : 'not signed: pass --sign-key FILE to sign it'}); check it with: tenant-auth-conformance verify ${bundle.directory}`,
        `Badge for a README: ${badgeMarkdown(report)}`,
      ].join('\n'),
    );
  }

  #preflightStopped(): boolean {
    const preflight = preflightFromEnvironment();
    return preflight !== undefined && (!preflight.ok || this.#settings().preflightOnly);
  }

  /** For the runner (conformance/run/run.ts), which exits with the code: Playwright has only 0 and 1. */
  #writeOutcome(verdict: string, exitCode: number): void {
    const file = process.env[ENV.outcomeFile];
    if (file) writeFileSync(file, JSON.stringify({ verdict, exitCode }));
  }

  #outcomeOf(test: TestCase, result: TestResult): TestOutcome {
    const annotation = (type: string): string | undefined =>
      [...test.annotations, ...result.annotations].find((candidate) => candidate.type === type)?.description;
    const evidence = result.attachments.find((attachment) => attachment.name === ANNOTATION.evidence)?.body;
    const failure = evidence ? (JSON.parse(evidence.toString('utf8')) as TestOutcome['failure']) : undefined;
    const warning = annotation(ANNOTATION.warning);
    const notEvaluated = annotation(ANNOTATION.notEvaluated);
    const notApplicable = annotation(ANNOTATION.notApplicable);
    const notSent = annotation(ANNOTATION.notSent);
    const firstError =
      result.errors[0]?.message === undefined
        ? undefined
        : stripVTControlCharacters(result.errors[0].message);
    return {
      status: result.status,
      ...(warning !== undefined ? { warning } : {}),
      ...(notEvaluated !== undefined ? { notEvaluated } : {}),
      ...(notApplicable !== undefined ? { notApplicable } : {}),
      ...(notSent !== undefined ? { notSent } : {}),
      ...(failure ? { failure } : {}),
      ...(firstError !== undefined ? { error: this.#namer().show(firstError.split('\n')[0] ?? '') } : {}),
    };
  }

  /** The exchanges a test attached (keys already shown as variables, and shown again here). */
  #collectExchanges(ruleId: string, result: TestResult): void {
    const origins = this.#seenIn(annotationOf(result, ANNOTATION.shard) ?? '').origins;
    for (const attachment of result.attachments) {
      const madeBy =
        attachment.name === ANNOTATION.exchanges
          ? ruleId
          : attachment.name === ANNOTATION.learningExchanges
            ? LEARNING
            : undefined;
      if (madeBy === undefined || !attachment.body) continue;
      const exchanges = showEveryString(JSON.parse(attachment.body.toString('utf8')), this.#namer());
      for (const exchange of exchanges as RecordedExchange[]) {
        this.#exchanges.push({ madeBy, exchange });
        origins.add(originOf(exchange.request.url));
      }
    }
  }

  /**
   * Made on first use, and again when the set-up project's test has ended: the keys it minted are
   * in the run's state file (project-state.ts), beside the configured ones in the environment.
   */
  #namer(): KeyNamer {
    if (!this.#namerOfRun) {
      const env = { ...process.env, ...this.#runEnvironment };
      // merge-reports declares no target (the machine merging may not have its variables): the
      // evidence was redacted when it was recorded, and nothing new is sent.
      this.#namerOfRun = this.#declaredTarget
        ? keyNamerFor(bindTarget(this.#declaredTarget, { ...env, ...readProjectState(env)?.env }))
        : new KeyNamer([]);
    }
    return this.#namerOfRun;
  }

  #redactError(error: TestError): void {
    for (const field of ['message', 'stack', 'value', 'snippet'] as const) {
      const text = error[field];
      if (typeof text === 'string') error[field] = this.#namer().show(text);
    }
    if (error.cause) this.#redactError(error.cause);
  }
}

/** A result's annotation of `type` (set while the test ran), if any. */
function annotationOf(result: TestResult, type: string): string | undefined {
  return result.annotations.find((annotation) => annotation.type === type)?.description;
}

/** `https://host:port` of a recorded URL (keys in it are shown as variables, never in the origin). */
function originOf(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}`;
  } catch {
    return 'not a URL';
  }
}

function ruleIdOf(test: TestCase): string | undefined {
  return test.annotations.find((annotation) => annotation.type === ANNOTATION.rule)?.description;
}

function showEveryString(value: unknown, namer: KeyNamer): unknown {
  if (typeof value === 'string') return namer.show(value);
  if (Array.isArray(value)) return value.map((item) => showEveryString(item, namer));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, showEveryString(item, namer)]),
    );
  return value;
}

/** The run's retry and pace settings, as the report's options record them. */
/** The limits a run kept: each can change a verdict (a retry not made, a page not followed). */
function trafficOptions(
  limits: Readonly<RunSettings>,
): Pick<
  NonNullable<ConformanceReport['options']>,
  'maxRetries' | 'retryBudgetSeconds' | 'maxRequestsPerSecond' | 'maxListPages' | 'maxListRecords'
> {
  return {
    maxRetries: limits.maxRetries,
    retryBudgetSeconds: limits.retryBudgetMs / 1000,
    ...(limits.maxRps !== undefined ? { maxRequestsPerSecond: limits.maxRps } : {}),
    maxListPages: limits.maxListPages,
    maxListRecords: limits.maxListRecords,
  };
}

/** --grep and --grep-invert as given, when they select (Playwright's default matches every test). */
function selectionOf(config: FullConfig): { grep?: string; grepInvert?: string } {
  const text = (patterns: RegExp | RegExp[] | null): string | undefined => {
    const list = (Array.isArray(patterns) ? patterns : patterns ? [patterns] : []).filter(
      (pattern) => pattern.source !== '.*',
    );
    return list.length > 0 ? list.map((pattern) => pattern.source).join(' | ') : undefined;
  };
  const grep = text(config.grep);
  const grepInvert = text(config.grepInvert);
  return { ...(grep !== undefined ? { grep } : {}), ...(grepInvert !== undefined ? { grepInvert } : {}) };
}

/** In `merge`: the shards' records it read (ENV.shardRecords, a JSON array); none in a run. */
function shardRecordsOfMerge(env: NodeJS.ProcessEnv = process.env): ShardRecord[] {
  const file = env[ENV.shardRecords];
  return file ? (JSON.parse(readFileSync(file, 'utf8')) as ShardRecord[]) : [];
}
