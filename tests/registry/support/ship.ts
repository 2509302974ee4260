// A can-i-ship question through the API, as a release gate asks it: the answer must be a 200 (a
// yes or a no with its sentence), whatever it says.
import assert from 'node:assert/strict';
import type { TestRegistry } from './registry.ts';

export interface Ship {
  ship: boolean;
  reason: string;
  run?: { id: number; warnings: string[]; checkedBy: string };
}

/** `query`: the can-i-ship parameters, e.g. `deployment=shop&version=1.0.0&checkedBy=registry`. */
export async function askShip(registry: TestRegistry, query: string): Promise<Ship> {
  const answer = await registry.request(`/api/v1/can-i-ship?${query}`);
  assert.equal(answer.status, 200, answer.text);
  return answer.json as Ship;
}
