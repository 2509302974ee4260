// `tenant-auth-conformance serve` (in a clone: `npm start`): the reference server for a person at a terminal. Prints where each fixture tenant
// is served and curl commands that work as printed, then one JSON access-log line per request.
import { startReferenceServer, type RunningReferenceServer } from '../server.ts';
import { ListenError } from '../listeners/listen.ts';
import { helpText, parseCli, UsageError, type CliOptions } from './cli-options.ts';
import { DEFAULT_FIXTURES_FILE, FixturesError, loadFixtures } from '../store/fixtures.ts';
import { jsonLinesAccessLog, noAccessLog } from '../http/access-log.ts';
import type { Fixtures } from '../../schemas/generated/fixtures.ts';
import { AdminTokenError, resolveAdminToken, type AdminTokenSource } from '../admin-api/admin-token.ts';
import { DataDirError } from '../store/data-dir.ts';
import { keyManagementLines } from './key-management-banner.ts';
import type { StepsOption } from './steps-option.ts';
import { openApiUrl } from '../admin-api/openapi-document.ts';
import { COMPILED, isMainModule } from '../../kit/package-root.ts';

/** How a person prints a fixture key: through the installed command, or the clone's npm script. */
const KEYS_COMMAND = COMPILED ? 'npx tenant-auth-conformance keys' : 'npm run --silent fixture-key --';

/**
 * Starts the server with command-line arguments `argv`. Resolves with 0 once it listens (it then
 * runs until a signal) or at once with the exit code of a usage (2) or setup (3) error.
 * `stepsOption`: an option that replaces steps of the server, from the command composing this one.
 */
export async function main(argv: string[], stepsOption?: StepsOption): Promise<number> {
  try {
    await start(argv, stepsOption);
    return 0;
  } catch (error) {
    return reportStartError(error);
  }
}

async function start(argv: string[], stepsOption: StepsOption | undefined): Promise<void> {
  const command = parseCli(argv, process.env, stepsOption);
  if (command.help) {
    console.log(helpText(stepsOption));
    return;
  }
  const { options } = command;
  // The composer's option and its value together, or neither (parseCli reads it only when given).
  const replacing =
    stepsOption && options.replaceSteps !== undefined
      ? { option: stepsOption, value: options.replaceSteps }
      : undefined;
  if (replacing?.value === 'list') {
    console.log(replacing.option.list());
    return;
  }
  const fixtures = loadFixtures(options.fixturesFile);
  const admin = resolveAdminToken(options.adminToken, options.dataDir);
  const server = await startReferenceServer({
    host: options.host,
    httpsPort: options.httpsPort,
    httpPort: options.httpPort,
    http2: options.http2,
    domain: options.domain,
    fixtures,
    certDir: options.certDir,
    accessLog: accessLogSink(options.accessLog),
    journalCapacity: options.journalCapacity,
    customersPageSize: options.customersPageSize,
    ...(options.dataDir === null ? {} : { dataDir: options.dataDir }),
    ...(admin.token === undefined ? {} : { adminToken: admin.token }),
    steps: replacing ? replacing.option.steps(replacing.value, fixtures) : {},
  });
  const stop = (signal: string): void => {
    console.error(`\n${signal} received: closing connections and stopping.`);
    void server.close().then(() => process.exit(0));
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
  // Only now announce readiness: a supervisor that signals as soon as it reads the banner must
  // find the handlers in place (printed first, a quick SIGINT killed the process with status 130).
  // A server with replaced steps (a faulty one) says so first, on both streams, before anything
  // else can be read.
  const warning = replacing?.option.warning(replacing.value);
  if (warning) console.error(warning);
  console.log(banner(server, fixtures, options, admin.source, warning));
}

function accessLogSink(target: CliOptions['accessLog']) {
  if (target === 'off') return noAccessLog;
  const stream = target === 'stdout' ? process.stdout : process.stderr;
  return jsonLinesAccessLog((line) => stream.write(line));
}

/** The start-up text. It names keys by id only; the commands fetch a key from the fixtures file. */
function banner(
  server: RunningReferenceServer,
  fixtures: Fixtures,
  options: CliOptions,
  adminToken: AdminTokenSource,
  warning: string | undefined,
): string {
  const resolve =
    options.domain === 'localhost'
      ? ''
      : ` --resolve "*.api.${options.domain}:${server.httpsPort}:${options.host}"`;
  const fixturesFlag =
    options.fixturesFile === DEFAULT_FIXTURES_FILE ? '' : ` --fixtures '${options.fixturesFile}'`;
  const lines = [
    ...(warning ? [warning] : []),
    `Reference server ready${server.certificatesReused ? '' : ' (new certificate created)'}.`,
    // This line is read by scripts and tests that start the server on free ports: keep its shape.
    `  Listening: https port ${server.httpsPort}, http port ${server.httpPort ?? 'off'} on ${options.host}`,
    `  CA certificate: ${server.caPath}`,
    `    trust it with curl --cacert, or NODE_EXTRA_CA_CERTS=${server.caPath} for Node clients`,
    `  HTTP/2: ${options.http2 ? 'on (ALPN offers h2 and http/1.1)' : 'off (HTTP/1.1 only)'}`,
    server.httpPort === null
      ? '  plain HTTP: off'
      : `  plain HTTP (rejects every request): port ${server.httpPort}`,
    '',
    'Tenants:',
  ];
  for (const tenant of fixtures.tenants) {
    const feature = tenant.apiKeysEnabled ? '' : '  (API keys feature disabled)';
    lines.push(`  ${tenant.id.padEnd(12)} ${server.baseUrl(tenant.id)}${feature}`);
    lines.push(`  ${''.padEnd(12)} ${server.baseUrl(tenant.id, 'sandbox')}  (sandbox)`);
  }
  lines.push(`  OpenAPI document (no key needed): ${openApiUrl(options.domain, server.httpsPort)}`);
  const example = fixtures.tenants.find((tenant) =>
    tenant.keys.some((key) => key.environment === 'production' && !key.revoked),
  );
  const exampleKey = example?.keys.find((key) => key.environment === 'production' && !key.revoked);
  if (example && exampleKey) {
    lines.push(
      '',
      'Try it (keys are printed only by the first command, never by the server):',
      `  export API_KEY="$(${KEYS_COMMAND}${fixturesFlag} ${exampleKey.id})"`,
      `  curl --cacert ${server.caPath}${resolve} -H "Authorization: Bearer $API_KEY" -H "Accept: application/json" ${server.baseUrl(example.id)}/customers`,
      `  curl --cacert ${server.caPath}${resolve} ${server.baseUrl(example.id)}/customers    # no key: 401 missing_authorization_header`,
      ...(options.http2
        ? [
            `  curl --http2 --cacert ${server.caPath}${resolve} -H "Authorization: Bearer $API_KEY" ${server.baseUrl(example.id)}/customers    # over HTTP/2`,
          ]
        : []),
      `  ${KEYS_COMMAND}    # lists every key id of the fixtures`,
    );
  }
  lines.push(
    ...keyManagementLines(server, fixtures, { host: options.host, dataDir: options.dataDir, adminToken }),
  );
  if (options.accessLog !== 'off') lines.push('', `Access log (JSON lines) on ${options.accessLog}:`);
  return lines.join('\n');
}

function reportStartError(error: unknown): number {
  // Expected failures get their own message and no stack trace; anything else is a defect.
  if (
    error instanceof UsageError ||
    error instanceof FixturesError ||
    error instanceof ListenError ||
    error instanceof DataDirError ||
    error instanceof AdminTokenError
  ) {
    console.error(`reference server: ${error.message}`);
  } else {
    // A file or port the system refused (its code and path say which), or a defect: the message
    // alone either way, never a stack trace for the user.
    console.error(
      `reference server: failed to start: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return error instanceof UsageError ? 2 : 3;
}

if (isMainModule(import.meta.url)) {
  const code = await main(process.argv.slice(2));
  // A failed start may leave a handle open (one of two listeners): end the process regardless.
  if (code !== 0) process.exit(code);
}
