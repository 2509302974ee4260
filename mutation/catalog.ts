// The fault catalog: named faults of the reference server, for one purpose: proving that the
// conformance suite can fail. Each fault replaces steps of the server (fault.ts) with a faulty
// variant that breaks the rule(s) it `catches`; the campaign (campaign.ts) runs the suite against
// every variant and the judge (judge.ts) checks that exactly those rules, and their consequences
// (knock-on.ts), fail. A fault is off unless asked for by name — `--fault NAME` on the server's
// command line or `startTestServer({ fault })` in a test, never from the environment — so that a
// faulty server cannot be started by accident. The faults are grouped like specs/.
import type { Fixtures } from '../schemas/generated/fixtures.ts';
import type { ServerSteps } from '../reference-server/steps/server-steps.ts';
import type { Fault } from './fault.ts';
import { AUTHORIZATION_HEADER_FAULTS } from './faults/authorization-header.ts';
import { ENVIRONMENTS_FAULTS } from './faults/environments.ts';
import { ERRORS_AND_VERSIONING_FAULTS } from './faults/errors-and-versioning.ts';
import { KEYS_FAULTS } from './faults/keys.ts';
import { PERMISSIONS_FAULTS } from './faults/permissions.ts';
import { TENANT_ISOLATION_FAULTS } from './faults/tenant-isolation.ts';
import { TENANT_ISOLATION_CONDITIONAL_FAULTS } from './faults/tenant-isolation-conditional.ts';
import { TRANSPORT_FAULTS } from './faults/transport.ts';

export type { Fault } from './fault.ts';

// In the order of the rule catalog (conformance/catalog/rules.ts), which the matrix follows.
const CATALOG = {
  ...TRANSPORT_FAULTS,
  ...AUTHORIZATION_HEADER_FAULTS,
  ...KEYS_FAULTS,
  ...TENANT_ISOLATION_FAULTS,
  ...TENANT_ISOLATION_CONDITIONAL_FAULTS,
  ...ENVIRONMENTS_FAULTS,
  ...PERMISSIONS_FAULTS,
  ...ERRORS_AND_VERSIONING_FAULTS,
};

export type FaultName = keyof typeof CATALOG;

export const FAULTS: Readonly<Record<FaultName, Fault>> = CATALOG;

export const FAULT_NAMES = Object.keys(FAULTS) as FaultName[];

export function isFaultName(name: string): name is FaultName {
  return Object.hasOwn(FAULTS, name);
}

/** The steps `fault` replaces, for `ReferenceServerOptions.steps`; none without a fault. */
export function faultySteps(fault: FaultName | undefined, fixtures: Fixtures): Partial<ServerSteps> {
  return fault === undefined ? {} : FAULTS[fault].steps(fixtures);
}

/** `--fault list`: one entry per fault, with the rules that must catch it. */
export function faultCatalogText(): string {
  const width = Math.max(...FAULT_NAMES.map((name) => name.length)) + 2;
  const entries = FAULT_NAMES.map((name) => {
    const fault = FAULTS[name];
    return `  ${name.padEnd(width)}${fault.description}\n  ${''.padEnd(width)}caught by ${fault.catches.join(', ')}`;
  });
  return [
    'Faults of the reference server (--fault NAME), each breaking the rules it is caught by.',
    'Only for proving that the conformance suite fails: never run a faulty server for anything else.',
    '',
    ...entries,
  ].join('\n');
}

/** The start-up warning of a faulty server: impossible to overlook. */
export function faultWarning(name: FaultName): string {
  const line = '!'.repeat(78);
  return [
    line,
    `!!! FAULT INJECTED: ${name}`,
    `!!! ${FAULTS[name].description}`,
    `!!! This server deliberately breaks ${FAULTS[name].catches.join(', ')}.`,
    '!!! It exists only to prove that the conformance suite fails. Never use it as a reference.',
    line,
  ].join('\n');
}
