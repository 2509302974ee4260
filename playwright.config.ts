// The conformance run of the `run` command: the same projects a team puts in its own config
// (conformanceProjects, here as kitProjects), with the kit's reporters. With no target file (CONFORMANCE_TARGET unset)
// it checks the embedded reference server; with one, that deployment. `npm run conformance --
// --help` explains the options.
import { join } from 'node:path';
import { defineConfig } from '@playwright/test';
import { handedOverSettings, handOverOf, resolveRunSettings } from './conformance/settings.ts';
import { handOverVariables, inputEnvironment, setHandOvers } from './conformance/env.ts';
import { protocolsOfRun } from './conformance/requests/protocols.ts';
import { declaredTargetOf, runMetadataOf } from './conformance/run/run-target.ts';
import type { SuiteOptions } from './conformance/run/projects.ts';
import { kitProjects } from './library/projects.ts';
import { codeFile } from './kit/package-root.ts';
import type { RunMetadata } from './conformance/report/run-metadata.ts';

// `merge-reports` only renders results recorded elsewhere (their metadata travels in the blobs):
// it needs no target, and the machine merging may not have the target's variables.
const merging = process.argv.includes('merge-reports');
// A shard also writes a blob report, for `npm run merge-reports` (see the README).
const sharded = process.argv.some((argument) => argument === '--shard' || argument.startsWith('--shard='));
// The run's settings, as the `run` or `merge` command resolved them (one variable, JSON). Started
// directly (`npx playwright test`), this config is the entry point: it resolves them from the
// environment itself and hands them on the same way, so that the workers, which read this config
// again, find the runner's value rather than resolve their own.
const settings =
  handedOverSettings(inputEnvironment()) ??
  (() => {
    const resolved = resolveRunSettings({}, inputEnvironment());
    setHandOvers(handOverVariables({ runSettings: handOverOf(resolved) }));
    return resolved;
  })();
// The projects a team's config gets from conformanceProjects(), named by protocol only: the target
// file the runner named or the embedded reference server, which each worker starts in-process;
// each project hands the settings to its workers (the `runSettings` option).
// Declared here and only here: every other part of the run gets the target from these projects
// (the `declaredTarget` option) and reads its keys from the environment it runs in.
// The trust the user started the run with, before the projects join the target's CA to it in a
// bundle of the run's own (a path that differs from run to run, and from shard to shard).
const startingTrust = { ...inputEnvironment() };
const projects = merging
  ? []
  : kitProjects(
      {
        target: settings.targetFile ? { file: settings.targetFile } : { embedded: true },
        protocols: protocolsOfRun(settings),
        name: '',
      },
      settings,
      // This config's reporter decides the run's status and writes every verdict from the rules'
      // own results: a failed rule need not cost a new worker (failed-rules-keep-worker.ts).
      { failedRulesKeepWorker: true },
    );
const target = declaredTargetOf(projects.at(-1));
const reports = settings.reportDirectory;
const metadata: RunMetadata | undefined =
  target && runMetadataOf(target, settings.failOnIncomplete, startingTrust, settings);

export default defineConfig<object, SuiteOptions>({
  testDir: './specs',
  fullyParallel: true,
  forbidOnly: !!inputEnvironment().CI,
  retries: 0,
  workers: inputEnvironment().CI ? 2 : undefined,
  // A rule's time includes its share of the retry budget and of a paced run's waits.
  timeout: 60_000 + settings.retryBudgetMs,
  // The conformance reporter comes first: it redacts results in place before the others see them.
  // It writes junit.xml itself (one case per rule, warnings visible), not Playwright's reporter.
  reporter: [
    // Its settings, for a merge, which has no projects to read them from.
    [codeFile('conformance/run/reporter'), { settings }],
    ['html', { outputFolder: join(reports, 'html'), open: 'never' }],
    // The project's own tests read Playwright's JSON report too (tests/support/conformance-run.ts).
    ...(inputEnvironment().PLAYWRIGHT_JSON_OUTPUT_NAME ? [['json'] as ['json']] : []),
    ...(sharded ? [['blob', { outputDir: join(reports, 'blob') }] as ['blob', object]] : []),
  ],
  outputDir: join(reports, 'test-results'),
  metadata: metadata ? { conformance: metadata } : {},
  use: {
    // Traces and call logs would hold request headers, keys included: never recorded.
    trace: 'off',
    screenshot: 'off',
    video: 'off',
  },
  projects,
});
