// Fuzzing of the Authorization header over real TLS: schemes and their case, spacing, quotes,
// tabs, control and non-ASCII bytes, mutated, foreign and revoked keys, huge values and
// duplicates, mixed with headers that try to name another tenant. Each case must get exactly the
// answer the decisions table gives, and never data without a valid key of that very host.
import { fuzzTest } from './fuzz-runner.ts';
import { authorizationRequests } from './authorization-requests.ts';

const RUNS = 1_500;

fuzzTest(
  'every Authorization header gets the answer of the decisions table, and data only with a valid key',
  RUNS,
  (target) => authorizationRequests(target.knowledge),
);
