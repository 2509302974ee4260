// A command-line option that replaces steps of the server (steps/server-steps.ts), handed to the server's
// command by whoever composes it: the kit's `serve` hands it the self-test's `--fault`
// (mutation/fault-option.ts). The server's own command has no such option of its own.
import type { Fixtures } from '../../schemas/generated/fixtures.ts';
import type { ServerSteps } from '../steps/server-steps.ts';

export interface StepsOption {
  /** The flag without its dashes. Never read from the environment: it cannot be left on by accident. */
  flag: string;
  /** The option's lines of `--help`, the text of each starting at `column`. */
  help(column: number): string[];
  /** Why a value is refused (a usage error), or undefined for a valid one. */
  problem(value: string): string | undefined;
  /** What `--FLAG list` prints instead of starting the server. */
  list(): string;
  /** The steps a value replaces. */
  steps(value: string, fixtures: Fixtures): Partial<ServerSteps>;
  /** Printed before anything else, on both streams, by a server started with a value. */
  warning(value: string): string;
}
