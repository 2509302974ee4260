// The reporter of a batch run (batch-plan.ts): each project gets the suite's own conformance
// reporter (conformance/run/reporter.ts), fed only that project's tests, writing to that variant's
// report directory and outcome file — what a run of its own, `npm run conformance`, would write.
// The conformance reporter reads everything of the variant's run from its project: the declared
// target, the settings (`runSettings`) and the hand-overs (`runEnvironment`: the preflight's
// result, the outcome file), so no call needs the runner's environment changed under it.
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
      project.reporter.onBegin(ownConfig, projectSuite);
    }
  }

  /** An error outside any test: no variant's run can be trusted. */
  onError(error: TestError): void {
    for (const project of this.#projects.values()) project.reporter.onError(error);
  }

  onStepEnd(test: TestCase, result: TestResult, step: TestStep): void {
    this.#forTest(test, (project) => project.reporter.onStepEnd(test, result, step));
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    this.#forTest(test, (project) => project.reporter.onTestEnd(test, result));
  }

  async onEnd(result: FullResult): Promise<void> {
    for (const project of this.#projects.values()) await project.reporter.onEnd(result);
  }

  #forTest(test: TestCase, call: (project: ProjectReporter) => void): void {
    const project = this.#projects.get(test.parent.project()?.name ?? '');
    if (project) call(project);
  }
}
