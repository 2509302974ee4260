// What the set-up project of a run (project-setup.ts) found, as the rule workers and the reporter
// read it: the preflight's result, left in the run's state file (project-state.ts), and the pace the
// run ended at, from the run's traffic file.
import { describeProblem, type PreflightResult } from '../deployment/preflight.ts';
import { pacedRate, readTraffic } from '../requests/shared-pacing.ts';
import { ENV, type Environment, handOver } from '../env.ts';
import { readProjectState } from './project-state.ts';

/** The requests per second the run ended paced at, or undefined if it never was. */
export function pacedRateOfRun(env?: Environment): number | undefined {
  const file = handOver('trafficFile', env);
  const traffic = file ? readTraffic(file) : undefined;
  return traffic && pacedRate(traffic);
}

/** What the preflight found, as the workers and the reporter read it; undefined before it ran. */
export function preflightFromEnvironment(env?: Environment): PreflightResult | undefined {
  // The set-up project leaves it in the run's state file; the mutation campaign's batch, in the environment.
  const text = handOver('preflight', env) ?? readProjectState(env)?.env[ENV.preflight];
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
