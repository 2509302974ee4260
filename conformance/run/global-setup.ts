// Before the run: the preflight (conformance/deployment/preflight.ts), then the keys a target with
// `keyMinting` asks for; after it: those keys revoked. What the preflight found travels in the
// environment: to the workers (rules whose URL could not be reached are not evaluated) and to the
// reporter (SETUP ERROR), which run in this process or inherit its environment.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FullConfig } from '@playwright/test';
import { mintKeys } from '../deployment/key-minting.ts';
import { describeProblem, runPreflight, type PreflightResult } from '../deployment/preflight.ts';
import { initialTraffic, pacedRate, readTraffic } from '../requests/shared-pacing.ts';
import { ENV } from '../env.ts';
import { runSettings } from '../settings.ts';
import { bindTarget, declaredTargetOf } from './run-target.ts';
import { readProjectState } from './project-state.ts';
import type { TargetDeclaration } from '../deployment/target.ts';

/** Thrown to stop Playwright before any test once the preflight has said its piece. */
export class PreflightStop extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PreflightStop';
  }
}

export default async function globalSetup(config: FullConfig): Promise<(() => Promise<void>) | undefined> {
  const declared = declaredTargetOf(config.projects[0]);
  if (!declared) throw new Error('No declaredTarget option: run the suite with its config.');
  const preflight = await runPreflight(bindTarget(declared), runSettings().requestTimeoutMs);
  process.env[ENV.preflight] = JSON.stringify(preflight);
  console.log(preflightSummary(preflight));
  if (!preflight.ok) throw new PreflightStop('SETUP ERROR: the preflight failed; no rule was run.');
  if (runSettings().preflightOnly) throw new PreflightStop('--preflight-only: no rule was run.');
  // Set before the workers start: they inherit it.
  const watch = mkdtempSync(join(tmpdir(), 'conformance-answers-'));
  process.env[ENV.answerWatchFile] = join(watch, 'consecutive-no-answers');
  const trafficFile = join(watch, 'traffic.json');
  writeFileSync(trafficFile, JSON.stringify(initialTraffic(runSettings().maxRps)));
  process.env[ENV.trafficFile] = trafficFile;
  const revokeMinted = await mintKeysIfAsked(declared);
  return async () => {
    await revokeMinted?.();
    // The reporter may end after this teardown: what it reports of the pace is left for it here.
    const traffic = readTraffic(trafficFile);
    process.env[ENV.trafficSummary] = JSON.stringify({ pacedRate: traffic && pacedRate(traffic) });
    rmSync(watch, { recursive: true, force: true });
  };
}

/** The requests per second the run ended paced at, or undefined if it never was. */
export function pacedRateOfRun(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const summary = env[ENV.trafficSummary];
  if (summary) return (JSON.parse(summary) as { pacedRate?: number }).pacedRate;
  const file = env[ENV.trafficFile];
  const traffic = file ? readTraffic(file) : undefined;
  return traffic && pacedRate(traffic);
}

async function mintKeysIfAsked(target: TargetDeclaration): Promise<(() => Promise<void>) | undefined> {
  if (!target.keyMinting) return undefined;
  const adminToken = process.env[target.keyMinting.adminToken] ?? '';
  const minted = await mintKeys(target, adminToken, target.caFile);
  // Set here, in the runner, before the workers start: they inherit it.
  Object.assign(process.env, minted.env);
  return () => minted.revokeAll();
}

/** What the preflight found, as the workers and the reporter read it; undefined before it ran. */
export function preflightFromEnvironment(env: NodeJS.ProcessEnv = process.env): PreflightResult | undefined {
  // In a team's config the set-up project leaves it in the run's state file (project-state.ts).
  const text = env[ENV.preflight] ?? readProjectState(env)?.env[ENV.preflight];
  return text ? (JSON.parse(text) as PreflightResult) : undefined;
}

export function preflightSummary(preflight: PreflightResult): string {
  const problems = [...preflight.blocking, ...preflight.unavailable];
  if (problems.length === 0) return 'Preflight: every declared URL answers over verified TLS.';
  return [
    preflight.ok ? 'Preflight: the base URL answers, but not every declared URL:' : 'Preflight failed:',
    ...problems.map((problem) => `  ${describeProblem(problem)}`),
  ].join('\n');
}
