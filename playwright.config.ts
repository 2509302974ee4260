// The conformance run of the `run` command: the same projects a team puts in its own config
// (conformanceProjects, here as kitProjects), with the kit's reporters. With no target file (CONFORMANCE_TARGET unset)
// it checks the embedded reference server; with one, that deployment. `npm run conformance --
// --help` explains the options.
import { join } from 'node:path';
import { defineConfig } from '@playwright/test';
import { runSettings } from './conformance/settings.ts';
import { protocolsOfRun } from './conformance/requests/protocols.ts';
import { declaredTargetOf, runMetadataOf } from './conformance/run/run-target.ts';
import type { SuiteOptions } from './conformance/run/projects.ts';
import { kitProjects } from './library/projects.ts';
import { codeFile } from './kit/package-root.ts';
import { reportDirectory, type RunMetadata } from './conformance/report/run-metadata.ts';

// `merge-reports` only renders results recorded elsewhere (their metadata travels in the blobs):
// it needs no target, and the machine merging may not have the target's variables.
const merging = process.argv.includes('merge-reports');
// A shard also writes a blob report, for `npm run merge-reports` (see the README).
const sharded = process.argv.some((argument) => argument === '--shard' || argument.startsWith('--shard='));
const settings = runSettings();
// The projects a team's config gets from conformanceProjects(), named by protocol only: the target
// file the runner named (CONFORMANCE_TARGET) or the embedded reference server, which each worker
// starts in-process; the run's other settings are in the environment every process inherits.
// Declared here and only here: every other part of the run gets the target from these projects
// (the `declaredTarget` option) and reads its keys from the environment it runs in.
const projects = merging
  ? []
  : kitProjects({
      target: settings.targetFile ? { file: settings.targetFile } : { embedded: true },
      protocols: protocolsOfRun(),
      name: '',
    });
const target = declaredTargetOf(projects.at(-1));
const reports = reportDirectory();
const metadata: RunMetadata | undefined = target && runMetadataOf(target, settings.failOnIncomplete);

export default defineConfig<object, SuiteOptions>({
  testDir: './specs',
  fullyParallel: true,
  forbidOnly: !!process.env.CI,
  retries: 0,
  workers: process.env.CI ? 2 : undefined,
  // A rule's time includes its share of the retry budget and of a paced run's waits.
  timeout: 60_000 + settings.retryBudgetMs,
  // The conformance reporter comes first: it redacts results in place before the others see them.
  // It writes junit.xml itself (one case per rule, warnings visible), not Playwright's reporter.
  reporter: [
    [codeFile('conformance/run/reporter')],
    ['html', { outputFolder: join(reports, 'html'), open: 'never' }],
    // The project's own tests read Playwright's JSON report too (tests/support/conformance-run.ts).
    ...(process.env.PLAYWRIGHT_JSON_OUTPUT_NAME ? [['json'] as ['json']] : []),
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
