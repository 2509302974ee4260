// Fuzzing of the addressing of a request over real TLS: the TLS SNI name against the `Host`
// header (spelled in every case, with ports and trailing dots, another tenant's host, hosts that
// match no tenant pattern, junk, none or two), with a key of some tenant. Data is served only
// when SNI and Host name the same tenant host and the key belongs to it (RFC 9110 §7.4).
import { fuzzTest } from './fuzz-runner.ts';
import { hostRequests } from './host-requests.ts';

const RUNS = 1_200;

fuzzTest(
  'data is served only when SNI and Host name the same tenant host and the key is of that host',
  RUNS,
  (target) => hostRequests(target.knowledge, target.server.server.httpsPort),
);
