// The test files that share one process. A Node process with tsx's loader spends about half a
// second of CPU before its first test, and each file loaded the reference server or the suite's
// modules again: for these files, that was more than their tests (about 35 s of CPU in all,
// bench/test-time-results.md). `npm run test:unit` runs this file in place of the files it
// imports (scripts/unit-test-files.ts lists the others); `node --test` over all of tests/ would run
// these twice.
//
// A file belongs here only if it leaves the process as it found it, for the files after it: no
// write to `process.env`, no `chdir` or `umask`, no mocks, no process handlers, no exit, no global
// setting (a dispatcher, a DNS order, `Error.stackTraceLimit`), no hook outside a `describe` (it
// would run around every file's tests), and no request through the suite's own client (its pacing
// is per process when no run shares it). tests/scripts/unit-test-files.test.ts checks the file
// and the helpers of tests/ it imports for each of these. Not checked: a file here should compute
// more than it waits, since they run one after another; and an error its code throws late is
// reported against whichever test runs then.
import './bench/mutation-survivors.test.ts';
import './bench/results-sections.test.ts';
import './cli/command-loading.test.ts';
import './conformance/attestation/bundle.test.ts';
import './conformance/catalog/client-catalog.test.ts';
import './conformance/client-report/client-report.test.ts';
import './conformance/client-report/clients-told-apart.test.ts';
import './conformance/client-report/exposed-keys.test.ts';
import './conformance/judging/checks.test.ts';
import './conformance/judging/common-records.test.ts';
import './conformance/judging/pages-decisions.test.ts';
import './conformance/judging/run-checker-decisions.test.ts';
import './conformance/layers.test.ts';
import './conformance/machinery.test.ts';
import './conformance/pages.test.ts';
import './conformance/report/console.test.ts';
import './conformance/report/provenance.test.ts';
import './conformance/report/report-files.test.ts';
import './conformance/report/report-formats.test.ts';
import './conformance/report/scope.test.ts';
import './conformance/report/shown-keys.test.ts';
import './conformance/report/verdict.test.ts';
import './conformance/requests/shared-pacing.test.ts';
import './conformance/run/run-target.test.ts';
import './docs/measured-numbers.test.ts';
import './hostile/concurrency.test.ts';
import './hostile/fuzz-authorization.test.ts';
import './hostile/fuzz-host.test.ts';
import './hostile/fuzz-request-line.test.ts';
import './independent-implementation/front-counters.test.ts';
import './library/api-report.test.ts';
import './mutation/fault-catalog.test.ts';
import './mutation/keyless-served-to-other-user-agents.test.ts';
import './reference-server/admin-api/admin-api.test.ts';
import './reference-server/admin-api/admin-token.test.ts';
import './reference-server/api/answer-bytes.test.ts';
import './reference-server/api/decisions-table/authorization-header.test.ts';
import './reference-server/api/decisions-table/hosts.test.ts';
import './reference-server/api/decisions-table/keys.test.ts';
import './reference-server/api/decisions-table/permissions.test.ts';
import './reference-server/api/decisions-table/routes.test.ts';
import './reference-server/api/decisions-table/success.test.ts';
import './reference-server/customer-pages.test.ts';
import './reference-server/http/access-log.test.ts';
import './reference-server/http/errors.test.ts';
import './reference-server/http/scanned-header-values.test.ts';
import './reference-server/journal/header-scan.test.ts';
import './reference-server/journal/journal.test.ts';
import './reference-server/layers.test.ts';
import './reference-server/listeners/certificates.test.ts';
import './reference-server/listeners/hardening.test.ts';
import './reference-server/listeners/limits.test.ts';
import './reference-server/listeners/plain-http.test.ts';
import './reference-server/misdirected.test.ts';
import './reference-server/panel/panel.test.ts';
import './reference-server/panel/sessions.test.ts';
import './reference-server/panel/sign-in-throttle.test.ts';
import './reference-server/store/coalescing-writer.test.ts';
import './reference-server/store/key-store.test.ts';
import './reference-server/store/persistence.test.ts';
import './schemas/ajv-instance.test.ts';
import './schemas/start-up-validators.test.ts';
import './scripts/openapi/openapi-served.test.ts';
import './scripts/openapi/openapi-server.test.ts';
import './scripts/openapi/openapi-validator.test.ts';
