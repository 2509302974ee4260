// The reporter of a batch run (batch-plan.ts): each variant gets the suite's own conformance
// reporter (conformance/run/reporter.ts), fed only that variant's tests (those under its describe,
// conformance/run/batch-variants.ts), writing to that variant's report directory and outcome file
// — what a run of its own, `npm run conformance`, would write. The conformance reporter reads
// everything of the variant's run from its one rule project, which is made here from the share's
// project and the variant's options in it: the declared target, the settings (`runSettings`) and
// the hand-overs (`runEnvironment`: the preflight's result, the outcome file), so no call needs
// the runner's environment changed under it.
import type {
  FullConfig,
  FullProject,
  FullResult,
  Reporter,
  Suite,
  TestCase,
  TestError,
  TestResult,
  TestStep,
} from '@playwright/test/reporter';
import ConformanceReporter from '../conformance/run/reporter.ts';
import { batchVariantOf, grepOf, type BatchVariantOptions } from '../conformance/run/batch-variants.ts';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { format } from 'node:util';
import { BATCH_CONSOLE_FILE, readBatchPlan, type BatchVariant } from './batch-plan.ts';

interface VariantReporter {
  variant: BatchVariant;
  reporter: ConformanceReporter;
}

export default class BatchReporter implements Reporter {
  readonly #variants = new Map<string, VariantReporter>(
    readBatchPlan().variants.map((variant) => [
      variant.name,
      { variant, reporter: new ConformanceReporter({ outputDir: variant.reportDir }) },
    ]),
  );
  readonly #names = [...this.#variants.keys()];
  /** Each test's variant, by its id: read off its title path once, not at each step. */
  readonly #byTest = new Map<string, VariantReporter>();

  printsToStdio(): boolean {
    return true;
  }

  onBegin(config: FullConfig, suite: Suite): void {
    const tests = new Map(this.#names.map((name): [string, TestCase[]] => [name, []]));
    for (const test of suite.allTests()) {
      const name = batchVariantOf(test, this.#names) ?? '';
      const variant = this.#variants.get(name);
      if (!variant) continue;
      this.#byTest.set(test.id, variant);
      tests.get(name)?.push(test);
    }
    for (const [name, { variant, reporter }] of this.#variants) {
      // As in a run of its own: its metadata, and one rule project, which declares its target and
      // settings as the suite's config would (worker options). Its name is its share's project's,
      // which its tests report, so that the reporter labels them as a run's only project's.
      const ownConfig = {
        ...config,
        // Its own --grep, as its run's config would hold it (the report's scope names it).
        ...(variant.grep !== undefined ? { grep: grepOf(variant.grep) } : {}),
        projects: config.projects.flatMap((project) => {
          const options = ownOptions(project, name);
          return options ? [{ ...project, use: { ...project.use, ...options } }] : [];
        }),
        metadata: { conformance: variant.metadata },
      };
      // The conformance reporter reads the tests of the suite it is given, nothing else of it.
      const own = tests.get(name) ?? [];
      reporter.onBegin(ownConfig, { allTests: () => own } as Suite);
    }
  }

  /** An error outside any test: no variant's run can be trusted. */
  onError(error: TestError): void {
    for (const { reporter } of this.#variants.values()) reporter.onError(error);
  }

  onStepEnd(test: TestCase, result: TestResult, step: TestStep): void {
    this.#forTest(test, (reporter) => reporter.onStepEnd(test, result, step));
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    this.#forTest(test, (reporter) => reporter.onTestEnd(test, result));
  }

  async onEnd(result: FullResult): Promise<void> {
    for (const { variant, reporter } of this.#variants.values()) {
      // What a run of its own prints at its end (summary, verdict line), kept beside its reports:
      // the variants end one after another, so what is printed meanwhile is this one's.
      const printed = await printedDuring(async () => {
        await reporter.onEnd(result);
      });
      mkdirSync(variant.reportDir, { recursive: true });
      writeFileSync(join(variant.reportDir, BATCH_CONSOLE_FILE), printed);
    }
  }

  #forTest(test: TestCase, call: (reporter: ConformanceReporter) => void): void {
    const variant = this.#byTest.get(test.id);
    if (variant) call(variant.reporter);
  }
}

/** The options of variant `name`, from its share's project, as a rule project's worker options. */
function ownOptions(project: FullProject, name: string): Omit<BatchVariantOptions, 'name'> | undefined {
  const variants = (project.use as { batchVariants?: readonly BatchVariantOptions[] }).batchVariants;
  const found = variants?.find((variant) => variant.name === name);
  if (!found) return undefined;
  const { runSettings, runEnvironment, declaredTarget } = found;
  return { runSettings, runEnvironment, declaredTarget };
}

/** What `work` prints with console.log and console.error while it runs, printed as ever too. */
async function printedDuring(work: () => Promise<void>): Promise<string> {
  const { log, error } = console;
  let printed = '';
  const keep =
    (print: (...values: unknown[]) => void) =>
    (...values: unknown[]): void => {
      printed += `${format(...values)}\n`;
      print(...values);
    };
  console.log = keep(log);
  console.error = keep(error);
  try {
    await work();
  } finally {
    console.log = log;
    console.error = error;
  }
  return printed;
}
