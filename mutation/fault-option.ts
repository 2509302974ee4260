// `--fault NAME|list` for the reference server's command (reference-server/cli/steps-option.ts):
// the one way to start a faulty server from a shell, as the kit's `serve` composes it.
import type { StepsOption } from '../reference-server/cli/steps-option.ts';
import { faultCatalogText, faultySteps, faultWarning, isFaultName } from './catalog.ts';

export const FAULT_OPTION: StepsOption = {
  flag: 'fault',
  help: (column) => [
    `${'  --fault NAME|list'.padEnd(column)}start with a deliberate fault, to prove the conformance suite`,
    `${''.padEnd(column)}fails (mutation/); "list" prints them. No env variable.`,
  ],
  problem: (value) =>
    isFaultName(value) ? undefined : `Unknown --fault "${value}": run with --fault list for the names.`,
  list: faultCatalogText,
  steps: (value, fixtures) => (isFaultName(value) ? faultySteps(value, fixtures) : {}),
  warning: (value) => (isFaultName(value) ? faultWarning(value) : ''),
};
