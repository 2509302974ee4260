// The conformance run. With no target file (CONFORMANCE_TARGET unset) it starts the embedded
// reference server through webServer on free ports and checks it; with a target file it checks
// that deployment. `npm run conformance -- --help` explains the options.
import { join } from 'node:path';
import { defineConfig } from '@playwright/test';
import { caBundleFor } from './conformance/requests/ca-trust.ts';
import { runSettings } from './conformance/settings.ts';
import { protocolsOfRun } from './conformance/requests/protocols.ts';
import { ENV } from './conformance/env.ts';
import { declareRunTarget, runMetadataOf } from './conformance/run/run-target.ts';
import { ruleProjects, type SuiteOptions } from './conformance/run/projects.ts';
import { embeddedCertDir, fixtureKeyEnvironment } from './conformance/deployment/embedded-target.ts';
import { codeFile, nodeCommand } from './reference-server/package-root.ts';
import { reportDirectory, type RunMetadata } from './conformance/report/run-metadata.ts';

// `merge-reports` only renders results recorded elsewhere (their metadata travels in the blobs):
// it needs no target, and the machine merging may not have the target's variables.
const merging = process.argv.includes('merge-reports');
// A shard also writes a blob report, for `npm run merge-reports` (see the README).
const sharded = process.argv.some((argument) => argument === '--shard' || argument.startsWith('--shard='));
const embedded = !runSettings().targetFile && !merging;
if (embedded) {
  // The embedded target names its keys by environment variable, like any target; the values are
  // the public test keys of fixtures/reference.json. Workers inherit them.
  for (const [name, value] of Object.entries(fixtureKeyEnvironment())) process.env[name] ??= value;
  // Resolved here, against the directory the run was started in: the server (started in this
  // config's directory, inside the package when installed) and the workers read the same one.
  process.env[ENV.referenceCertDir] = embeddedCertDir();
}
// Declared here and only here: every other part of the run gets it from this config (the `declaredTarget`
// option), and reads its keys from the environment it runs in (conformance/run/run-target.ts).
const target = merging ? undefined : declareRunTarget();
// Node reads NODE_EXTRA_CA_CERTS once at start-up: set here, it reaches the worker processes,
// where Playwright's request API makes its TLS connections. Verification is never turned off.
const caBundle = caBundleFor(target?.caFile);
if (caBundle) process.env.NODE_EXTRA_CA_CERTS = caBundle;

const reports = reportDirectory();
const protocols = protocolsOfRun();
const EMBEDDED_SERVER_OPTIONS = [
  '--port',
  '0',
  '--http-port',
  '0',
  '--access-log',
  'off',
  '--data-dir',
  'off',
  // Pages of two customers: the fixtures' lists of three then page, and the rules on pages apply.
  '--page-size',
  '2',
];
const metadata: RunMetadata | undefined = target && runMetadataOf(target, runSettings().failOnIncomplete);

export default defineConfig<object, SuiteOptions>({
  testDir: './specs',
  // Mints the keys a target with `keyMinting` asks for, and revokes them after the run.
  // Absolute paths of this tree's own extension: TypeScript in the repository, compiled when installed.
  globalSetup: codeFile('conformance/run/global-setup'),
  fullyParallel: true,
  forbidOnly: !!process.env.CI,
  retries: 0,
  workers: process.env.CI ? 2 : undefined,
  // A rule's time includes its share of the retry budget and of a paced run's waits.
  timeout: 60_000 + runSettings().retryBudgetMs,
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
  // One project per protocol the run speaks over TLS, each rule judged over each (run.ts decides
  // which, from --protocols or the target's ALPN): the projects a team's config gets from
  // conformanceProjects() (library/projects.ts), named by protocol only. merge-reports needs none.
  ...(target ? { projects: ruleProjects({ declaredTarget: target, protocols, prefix: '' }) } : {}),
  webServer: embedded
    ? {
        // Its own key store stays in memory: keys revoked in a local panel must not change a verdict.
        command: [...nodeCommand('reference-server/cli/cli'), ...EMBEDDED_SERVER_OPTIONS]
          .map(shellQuote)
          .join(' '),
        wait: {
          stdout: /Listening: https port (?<reference_https_port>\d+), http port (?<reference_http_port>\d+)/,
        },
        stdout: 'ignore',
        stderr: 'pipe',
        timeout: 60_000,
        reuseExistingServer: false,
        gracefulShutdown: { signal: 'SIGTERM', timeout: 5_000 },
      }
    : undefined,
});

/** webServer runs its command through a shell; paths may hold spaces. */
function shellQuote(word: string): string {
  return /^[\w./=:-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
