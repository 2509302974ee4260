// The run's settings as the conformance reporter records them: in the report's options, in its
// scope (every setting that can change a verdict), and whether it writes a bundle.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { ConformanceReport } from '../../schemas/generated/conformance-report.ts';
import type { ScopeSettings } from '../report/scope.ts';
import type { RunSettings } from '../settings.ts';
import { writeBundle } from '../attestation/bundle.ts';
import { BUNDLE_DIRECTORY } from '../attestation/bundle-files.ts';
import { badgeMarkdown } from '../attestation/badge.ts';
import { KeyFileError } from '../attestation/signing-key.ts';
import { bundleSettings } from './attestation-options.ts';

/** Playwright's own settings of the rule projects that can change a verdict. */
export interface PlaywrightSettings {
  retries: number;
  repeatEach: number;
}

/** The limits a run kept, as the report's options record them: each can change a verdict. */
export function trafficOptions(
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

/** Every setting of the run that can change a verdict (report/scope.ts, scope.settings). */
export function scopeSettings(
  settings: Readonly<RunSettings>,
  playwright: PlaywrightSettings | undefined,
  maxFailures: number,
): ScopeSettings {
  return {
    retries: playwright?.retries ?? 0,
    repeatEach: playwright?.repeatEach ?? 1,
    maxRetries: settings.maxRetries,
    retryBudgetSeconds: settings.retryBudgetMs / 1000,
    requestTimeoutSeconds: settings.requestTimeoutMs / 1000,
    ...(settings.maxRps !== undefined ? { maxRequestsPerSecond: settings.maxRps } : {}),
    maxListPages: settings.maxListPages,
    maxListRecords: settings.maxListRecords,
    ...(maxFailures > 0 ? { maxFailures } : {}),
  };
}

/**
 * bundle/ (conformance/attestation/): with --bundle or --sign-key, and by default under strict;
 * never for the rules of several targets (or settings) run as one.
 */
export function writeBundleIfWanted(
  report: ConformanceReport,
  outputDir: string,
  settings: Readonly<RunSettings>,
  targetsChecked: number,
): void {
  let wanted: ReturnType<typeof bundleSettings>;
  try {
    wanted = bundleSettings(report.profile, settings);
  } catch (error) {
    // The runner checked the key before the run; merge, or a key file gone since, ends here.
    if (!(error instanceof KeyFileError)) throw error;
    console.error(`No bundle written: ${error.message}`);
    return;
  }
  if (!wanted.wanted) return;
  if (targetsChecked > 1) {
    // Not even an earlier run's bundle may stay beside these reports.
    rmSync(join(outputDir, BUNDLE_DIRECTORY), { recursive: true, force: true });
    console.error(`No bundle written: the rules of ${targetsChecked} targets (or settings) were run as one.`);
    return;
  }
  const bundle = writeBundle(report, outputDir, wanted.signingKey);
  console.log(
    [
      `Bundle: ${bundle.directory} (${bundle.signedBy ? `signed by key ${bundle.signedBy}` : 'not signed: pass --sign-key FILE to sign it'}); check it with: tenant-auth-conformance verify ${bundle.directory}`,
      `Badge for a README: ${badgeMarkdown(report)}`,
    ].join('\n'),
  );
}
