// The reporter of a batch run (batch-plan.ts): each project gets the suite's own conformance
// reporter (conformance/run/reporter.ts), fed only that project's tests, writing to that variant's
// report directory and outcome file — what a run of its own, `npm run conformance`, would write.
// The conformance reporter reads the project's declared target and settings from the config, and
// the run's hand-overs (the preflight's result, the outcome file) from the environment when it is
// called: each call is made with the project's variables in place, and the runner's put back after it. Reporter calls are
// synchronous, so no other project's call can see them.
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
import ConformanceReporter from '../conformance/run/reporter.ts';
import { readBatchPlan, type BatchVariant } from './batch-plan.ts';

interface ProjectReporter {
  variant: BatchVariant;
  reporter: ConformanceReporter;
}

export default class BatchReporter implements Reporter {
  readonly #projects = new Map<string, ProjectReporter>(
    readBatchPlan().variants.map((variant) => [
      variant.name,
      { variant, reporter: new ConformanceReporter({ outputDir: variant.reportDir }) },
    ]),
  );

  printsToStdio(): boolean {
    return true;
  }

  onBegin(config: FullConfig, suite: Suite): void {
    for (const projectSuite of suite.suites) {
      const project = this.#projects.get(projectSuite.project()?.name ?? '');
      if (!project) continue;
      // As in a run of its own: its metadata, and its project (with its declared target) alone.
      const ownProjects = config.projects.filter((candidate) => candidate.name === project.variant.name);
      const ownConfig = {
        ...config,
        projects: ownProjects,
        metadata: { conformance: project.variant.metadata },
      };
      within(project, () => project.reporter.onBegin(ownConfig, projectSuite));
    }
  }

  /** An error outside any test: no variant's run can be trusted. */
  onError(error: TestError): void {
    for (const project of this.#projects.values()) within(project, () => project.reporter.onError(error));
  }

  onStepEnd(test: TestCase, result: TestResult, step: TestStep): void {
    this.#forTest(test, (project) => project.reporter.onStepEnd(test, result, step));
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    this.#forTest(test, (project) => project.reporter.onTestEnd(test, result));
  }

  async onEnd(result: FullResult): Promise<void> {
    for (const project of this.#projects.values())
      await within(project, () => project.reporter.onEnd(result));
  }

  #forTest(test: TestCase, call: (project: ProjectReporter) => void): void {
    const project = this.#projects.get(test.parent.project()?.name ?? '');
    if (project) within(project, () => call(project));
  }
}

/** Runs `call` with the project's run environment in process.env, and restores the runner's. */
function within<T>(project: ProjectReporter, call: () => T): T {
  const saved = Object.keys(project.variant.environment).map((name) => [name, process.env[name]] as const);
  Object.assign(process.env, project.variant.environment);
  try {
    return call();
  } finally {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}
