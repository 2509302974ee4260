// Fuzzing of the request line over real TLS: methods (known, lowercase, unknown, CONNECT),
// request targets (paths near /v1/customers, random paths, absolute-form naming another tenant,
// `*`, junk), query strings carrying keys in the parameters spec §5 forbids and tenant fields,
// and HTTP versions. A key in the URL never authenticates, and only GET/HEAD /v1/customers with
// a valid Authorization header gets data.
import { fuzzTest } from './fuzz-runner.ts';
import { requestLineRequests } from './request-line-requests.ts';

const RUNS = 1_500;

fuzzTest(
  'only GET/HEAD /v1/customers with a valid Authorization header gets data; a key in the URL never counts',
  RUNS,
  (target) => requestLineRequests(target.knowledge),
);
