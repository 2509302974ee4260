// The conformance reporter: a line per rule while the run goes, then the verdict table; writes
// conformance.json (schemas/conformance-report.schema.json), conformance.md, conformance.html,
// junit.xml and exchanges.har (report/write-reports.ts); and decides the exit code from the
// verdict.
//
// Listed first among the reporters, it also redacts in place: Playwright records request headers,
// keys included, in a failed API call's log, attached to the step, with no redaction. Reporters
// share the result objects in order, so masking here keeps every artifact free of keys (each shown
// as its variable's name, conformance/redaction/shown-keys.ts; tests/conformance/report/secrets.test.ts
// searches every file a run writes). Worker messages' colour codes are stripped. Beside it, by role:
// reporter-results.ts (what it reads), reporter-evidence.ts, reporter-redaction.ts,
// reporter-settings.ts, and team-tests.ts (a team's own tests, said after the verdict).
import { basename, resolve } from 'node:path';
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
import { writeReports } from '../report/write-reports.ts';
import { ruleById, type RuleId } from '../catalog/rules.ts';
import { declaredTargetOf, runMetadataOf } from './run-target.ts';
import { kitProjectRole } from './projects.ts';
import { reachOf } from '../report/reach.ts';
import { PROTOCOL_NAME, type Protocol } from '../requests/protocols.ts';
import type { Profile, TargetDeclaration } from '../deployment/target.ts';
import { EXIT_CODE, exitCodeFor, ruleVerdict } from '../report/verdict.ts';
import { pacedRateOfRun, preflightFromEnvironment } from './preflight-state.ts';
import { retriesByRule, trafficOf } from '../report/traffic-summary.ts';
import { explainFrontRefusals } from '../report/front-refusals.ts';
import { OutcomesByProtocol } from '../report/outcomes-by-protocol.ts';
import { ANNOTATION } from './annotations.ts';
import { LeaksSeen } from './leaks-seen.ts';
import { RunJudgement } from './run-judgement.ts';
import { protocolsOfRun } from '../requests/protocols.ts';
import { runSettings, type RunSettings } from '../settings.ts';
import type { RunMetadata } from '../report/run-metadata.ts';
import { scopeOf } from '../report/scope.ts';
import {
  optionsOfSettings,
  settingsOfShards,
  shardDisagreements,
  shardRecordOf,
  shardsWithoutRecord,
  type ShardRecord,
} from '../report/shard-records.ts';
import { RunEvidence } from './reporter-evidence.ts';
import { RunRedaction } from './reporter-redaction.ts';
import {
  annotationOf,
  outcomeOf,
  preflightOnlyEnded,
  protocolsCovered,
  runEnd,
  selectionOf,
  shardRecordsOfMerge,
  targetsChecked,
  writeOutcome,
  writeShardRecord,
} from './reporter-results.ts';
import {
  scopeSettings,
  trafficOptions,
  writeBundleIfWanted,
  type PlaywrightSettings,
} from './reporter-settings.ts';
import { RULES } from '../catalog/rules.ts';
import { TeamTests } from './team-tests.ts';
import { failureShownAsFailure } from './failed-rules-keep-worker.ts';
import { kitRuleIdOf, shownByExchanges } from './kit-rule-results.ts';
import { inputEnvironment } from '../env.ts';

export default class ConformanceReporter implements Reporter {
  #declaredTarget: TargetDeclaration | undefined;
  readonly #redaction = new RunRedaction();
  #metadata: RunMetadata | undefined;
  /** The verdict is INCOMPLETE and the run was told to fail on it. */
  #incompleteFails = false;
  #shard: string | undefined;
  #playwrightSettings: PlaywrightSettings | undefined;
  #selection: { grep?: string; grepInvert?: string } = {};
  /** A shard's own record, left beside its blob once every reporter has ended (onExit). */
  #shardRecord: ShardRecord | undefined;
  #startedAt = new Date();
  readonly #painter = paint(colourWanted(process.stdout, inputEnvironment()));
  /** Each rule's outcomes, by the protocol its project spoke ('' when the run has one project). */
  readonly #outcomes = new OutcomesByProtocol();
  readonly #leaks = new LeaksSeen();
  readonly #judgement = new RunJudgement();
  readonly #selected = new Set<string>();
  /** The run's settings: the rule projects' (`runSettings`); with no rule project (a merge), the option's. */
  #runSettings: Readonly<RunSettings>;
  /**
   * The rules selected over each protocol (by the project their tests are in): a protocol was
   * checked only if every selected rule was selected over it. A shard or a --grep that takes one
   * protocol's project alone checked that protocol only.
   */
  readonly #selectedOver = new Map<string, Set<string>>();
  /** The rules each protocol was checked for, by what each rule's test said it ran over (ANNOTATION.protocol). */
  readonly #ranOver = new Map<string, Set<string>>();
  /** Lists not followed to their end (ANNOTATION.listCut). */
  readonly #listsCut = new Set<string>();
  /** What each shard's tests reached and saw, by shard ('' unsharded): a merge judges shards by it. */
  readonly #evidence = new RunEvidence();
  #maxFailures = 0;
  /** How many different targets the rule projects declare: one, or the run is not one target's. */
  #targetsChecked = 1;
  readonly #secondsByRule = new Map<string, number>();
  readonly #runErrors: string[] = [];
  readonly #outputDir: string;
  readonly #decidesStatus: boolean;
  /** Each rule project's label in the reports: its protocol when the run has several, else none. */
  #labels = new Map<string, string>();
  readonly #teamTests = new TeamTests();
  /** The kit's rule projects by name: only their tests give a rule's outcome (kit-rule-results.ts). */
  #ruleProjects = new Set<string>();

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
    this.#ruleProjects = new Set(ruleProjects.map((project) => project.name));
    // One report is one target's: rule projects of several targets (a team's config with two
    // conformanceProjects) would mix their outcomes under the first one's name.
    // The settings each rule project hands its workers are part of what it checks: the report
    // states the first one's, so projects of other settings are another run.
    this.#targetsChecked = targetsChecked(ruleProjects);
    if (this.#targetsChecked > 1)
      this.#runErrors.push(
        `the rule projects check ${this.#targetsChecked} different targets (or one with different settings), but a report (and its certificate) is one target's under one set of settings: run each with a reporter of its own`,
      );
    // A config hands the run's settings to its rule projects (conformanceProjects): the report
    // states those, as the workers used them.
    this.#runSettings =
      (ruleProjects[0]?.use as { runSettings?: Readonly<RunSettings> } | undefined)?.runSettings ??
      this.#runSettings;
    this.#redaction.forRun(
      this.#declaredTarget,
      (ruleProjects[0]?.use as { runEnvironment?: Readonly<Record<string, string>> } | undefined)
        ?.runEnvironment ?? {},
    );
    this.#metadata =
      (config.metadata as { conformance?: RunMetadata }).conformance ??
      (this.#declaredTarget &&
        runMetadataOf(this.#declaredTarget, false, inputEnvironment(), this.#runSettings));
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
      const ruleId = kitRuleIdOf(test, this.#ruleProjects);
      if (!ruleId) continue;
      this.#selected.add(ruleId);
      const protocol =
        PROTOCOL_NAME[(test.parent.project()?.use as { protocol?: Protocol }).protocol ?? 'h1'];
      const over = this.#selectedOver.get(protocol) ?? new Set<string>();
      this.#selectedOver.set(protocol, over.add(ruleId));
    }
    const profile = this.#metadata?.profile ?? 'default';
    if (this.#preflightStopped() || this.#runSettings.preflightOnly) return;
    console.log(
      `Conformance run: ${suite.allTests().filter((test) => kitRuleIdOf(test, this.#ruleProjects)).length} checks of ${this.#metadata?.target.name ?? 'the target'}, profile ${profile}\n`,
    );
  }

  /** An error outside any test (global setup, a broken config): the run cannot be trusted. */
  onError(error: TestError): void {
    // The preflight stopped the run on purpose, and has printed why.
    if (this.#preflightStopped()) return;
    this.#redaction.redactError(error);
    const message = stripVTControlCharacters(error.message ?? String(error.value ?? 'unknown error'));
    this.#runErrors.push(message);
    console.error(`Run error: ${message}`);
  }

  onStepEnd(_test: TestCase, _result: TestResult, step: TestStep): void {
    if (step.error) this.#redaction.redactError(step.error);
  }

  /**
   * What the set-up and teardown projects print (the preflight's findings), for the `run` command,
   * whose console this reporter owns. In a team's config the team's reporters show it.
   */
  onStdOut(chunk: string | Buffer, test: TestCase | undefined): void {
    if (this.#decidesStatus && kitProjectRole(test?.parent.project()) !== undefined)
      process.stdout.write(this.#redaction.show(chunk.toString()));
  }

  onStdErr(chunk: string | Buffer, test: TestCase | undefined): void {
    if (this.#decidesStatus && kitProjectRole(test?.parent.project()) !== undefined)
      process.stderr.write(this.#redaction.show(chunk.toString()));
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    failureShownAsFailure(test, result);
    result.errors.forEach((error) => this.#redaction.redactError(error));
    if (result.error) this.#redaction.redactError(result.error);
    for (const output of [result.stdout, result.stderr]) {
      output.forEach((chunk, index) => (output[index] = this.#redaction.show(chunk.toString())));
    }
    if (kitProjectRole(test.parent.project()) !== undefined) {
      // The set-up project has left its state, minted keys and all: the namer is made again with them.
      this.#redaction.forget();
      this.#evidence.preflightSeen(result, this.#redaction.namer());
      this.#judgement.learned(result, this.#redaction.namer());
      return this.#kitTestEnded(result);
    }
    const ruleId = kitRuleIdOf(test, this.#ruleProjects);
    if (!ruleId) return this.#teamTests.ended(test, result);
    const ranOver = annotationOf(result, ANNOTATION.protocol);
    if (ranOver !== undefined)
      this.#ranOver.set(ranOver, (this.#ranOver.get(ranOver) ?? new Set()).add(ruleId));
    for (const annotation of result.annotations)
      if (annotation.type === ANNOTATION.listCut && annotation.description)
        this.#listsCut.add(annotation.description);
    const project = test.parent.project()?.name ?? '';
    const label = this.#labels.get(project) ?? project;
    // Outcomes are kept by the protocol the test says it ran over (a merge of shards of one
    // protocol each has two unnamed projects), by its project otherwise.
    this.#evidence.collectExchanges(ruleId, result, this.#redaction.namer(), ranOver ?? label);
    this.#judgement.learned(result, this.#redaction.namer());
    this.#secondsByRule.set(ruleId, (this.#secondsByRule.get(ruleId) ?? 0) + result.duration / 1000);
    const outcome = shownByExchanges(ruleId, outcomeOf(test, result, this.#redaction.namer()), result);
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
    const teamTests = this.#teamTests.summary();
    if (teamTests !== undefined) console.log(teamTests);
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
    const preflight = preflightFromEnvironment(this.#redaction.environment());
    if (this.#runSettings.preflightOnly) {
      return Promise.resolve(preflightOnlyEnded(preflight?.ok === true, this.#redaction.environment()));
    }
    // Set for the run, or for the merge of its shards.
    const failOnIncomplete = metadata.failOnIncomplete || this.#runSettings.failOnIncomplete;
    const records = shardRecordsOfMerge(this.#redaction.environment());
    // A shard's own run is judged when its blob is merged.
    const shards = this.#shard
      ? records
      : this.#evidence.judgedShards(records, (message) => this.#runErrors.push(message));
    // A merge ran no rule: the settings the run ran under are its shards' (shard-records.ts).
    const shardSettings = this.#shard ? undefined : settingsOfShards(shards);
    // A merge's certificates are those its shards' set-up tests saw, never their records'.
    const tls = preflight?.tls ?? this.#evidence.tlsSeen();
    // The whole run is judged: every exchange it recorded, whichever rule (or set-up) sent it.
    this.#judgement.judge(this.#evidence.exchanges, this.#redaction.boundTarget(), this.#outcomes, this.#selected, (message) => this.#runErrors.push(message)); // prettier-ignore
    const report = buildReport(explainFrontRefusals(this.#outcomes.byRule(), this.#evidence.exchanges), {
      target: metadata.target,
      profile: metadata.profile,
      startedAt: result.startTime ?? this.#startedAt,
      durationMs: result.duration,
      ...(this.#shard ? { shard: this.#shard } : {}),
      setupProblems: preflight ? [...preflight.blocking, ...preflight.unavailable] : [],
      setupError: preflight !== undefined && !preflight.ok,
      retriesByRule: retriesByRule(this.#evidence.exchanges),
      traffic: trafficOf(this.#evidence.exchanges, pacedRateOfRun(this.#redaction.environment())),
      ...(this.#outcomes.protocols().length > 1 ? { byProtocol: this.#outcomes.byProtocol() } : {}),
      runProtocols: protocolsOfRun(this.#runSettings).map((protocol) => PROTOCOL_NAME[protocol]),
      notOffered: this.#runSettings.protocolsNotOffered.map((protocol) => PROTOCOL_NAME[protocol]),
      options: {
        failOnIncomplete,
        ...(shardSettings
          ? optionsOfSettings(shardSettings)
          : {
              requestTimeoutSeconds: this.#runSettings.requestTimeoutMs / 1000,
              ...trafficOptions(this.#runSettings),
              ...this.#playwrightSettings,
            }),
        selectedRules: this.#selected.size,
      },
      ...(tls.length > 0 ? { tls } : {}),
      reach: reachOf(this.#evidence.exchanges, tls),
      scope: scopeOf({
        ...protocolsCovered(
          this.#ranOver,
          this.#selectedOver,
          this.#selected,
          metadata.protocols ??
            (this.#outcomes.protocols().length > 1 ? this.#outcomes.protocols() : [PROTOCOL_NAME.h1]),
        ),
        tls,
        ...(preflight?.ok === false ? {} : { baseUrl: metadata.target.baseUrl }), // (a set-up error's own)
        ...(metadata.target.hosts ? { hostMap: metadata.target.hosts } : {}),
        rulesSelected: this.#selected.size,
        rulesInCatalog: RULES.length,
        ...this.#selection,
        shards: this.#shard ? [this.#shard] : shards.map((shard) => shard.shard),
        listsCut: [...this.#listsCut].sort(),
        settings:
          shardSettings ?? scopeSettings(this.#runSettings, this.#playwrightSettings, this.#maxFailures),
        shardProblems: shardDisagreements(shards),
        shardsWithoutRecord: shardsWithoutRecord(shards),
      }),
      ...(shards.length > 0 ? { shards } : {}),
    });
    if (this.#shard) this.#shardRecord = shardRecordOf(report);
    const files = writeReports(
      report,
      { exchanges: this.#evidence.exchanges, secondsByRule: this.#secondsByRule },
      this.#outputDir,
    );
    const reportFiles = [...files.map((file, index) => (index === 0 ? file : basename(file))), 'html/'];
    console.log(summary(report, { selected: this.#selected, reportFiles, painter: this.#painter }));
    writeBundleIfWanted(report, this.#outputDir, this.#runSettings, this.#targetsChecked);
    if (this.#runErrors.length > 0) console.error(`The run did not complete: ${this.#runErrors.join('; ')}`);
    const { exitCode, status } = runEnd(result, report.verdict, this.#runErrors.length > 0, exitCodeFor(report, failOnIncomplete)); // prettier-ignore
    writeOutcome(report.verdict, exitCode, this.#redaction.environment());
    this.#incompleteFails = report.verdict === 'INCOMPLETE' && exitCode !== EXIT_CODE.ok;
    return Promise.resolve({ status });
  }

  /**
   * After every reporter's onEnd: the blob reporter empties its folder when it writes the blob, so
   * the shard's record is put beside the blob only now.
   */
  onExit(): Promise<void> {
    if (this.#shardRecord) writeShardRecord(this.#outputDir, this.#shardRecord);
    return Promise.resolve();
  }

  #preflightStopped(): boolean {
    const preflight = preflightFromEnvironment(this.#redaction.environment());
    return preflight !== undefined && (!preflight.ok || this.#runSettings.preflightOnly);
  }
}
