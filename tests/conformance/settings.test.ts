// A run's settings (conformance/settings.ts): read and checked in one place, with one set of
// bounds for the flags, a team's config and the environment; an invalid variable is a usage error
// that names it, never a default; and a lint rule refuses a read of a setting anywhere else.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ESLint, Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { ATTESTATION_ENV, ENV, REPORT_ENV } from '../../conformance/env.ts';
import {
  handedOverSettings,
  handOverOf,
  readRunSettings,
  resolveRunSettings,
  RUN_SETTINGS_VARIABLE,
  runSettings,
  useRunSettings,
  SETTING_VARIABLES,
  UsageError,
  type RunSettings,
} from '../../conformance/settings.ts';
import { splitOptions } from '../../conformance/run/run-options.ts';
import { REPO_ROOT } from '../support/reference-client.ts';
import { cleanEnv, runMain } from '../support/reference-cli.ts';
import { scratchDirectory } from '../support/scratch.ts';

/** The lint rule as eslint.config.js declares it (a JavaScript module: imported by its URL). */
const { SETTING_KEYS, SETTING_VARIABLE_NAMES, SETTINGS_READ_ONCE } = (await import(
  pathToFileURL(join(REPO_ROOT, 'eslint.config.js')).href
)) as { SETTING_KEYS: string[]; SETTING_VARIABLE_NAMES: string[]; SETTINGS_READ_ONCE: Linter.RulesRecord };

test('unset (or empty), every setting has its default', () => {
  const defaults: RunSettings = {
    targetFile: undefined,
    profile: undefined,
    protocols: undefined,
    protocolsNotOffered: [],
    requestTimeoutMs: 10_000,
    maxRps: undefined,
    userAgent: undefined,
    maxRetries: 4,
    retryBudgetMs: 60_000,
    maxListPages: 10,
    maxListRecords: 1000,
    failOnIncomplete: false,
    reportDirectory: resolve('reports'),
    bundle: undefined,
    signKeyFile: undefined,
    preflightOnly: false,
  };
  assert.deepEqual(readRunSettings({}), defaults);
  const empty = Object.fromEntries(SETTING_VARIABLES.map((name) => [name, '']));
  assert.deepEqual(readRunSettings(empty), defaults);
});

test('given, each setting is read into its typed field', () => {
  const settings = readRunSettings({
    [ENV.targetFile]: 'some/target.json',
    [ENV.profile]: 'strict',
    [ENV.protocols]: 'h2, h1',
    [ENV.protocolsNotOffered]: 'h2',
    [ENV.preflightOnly]: '1',
    [ENV.requestTimeout]: '2.5',
    [ENV.maxRetries]: '0',
    [ENV.retryBudget]: '1.5',
    [ENV.maxRps]: '0.5',
    [ENV.userAgent]: 'python-requests/2.31.0',
    [ENV.maxListPages]: '3',
    [ENV.maxListRecords]: '250',
    [REPORT_ENV.directory]: 'out',
    [REPORT_ENV.failOnIncomplete]: '1',
    [ATTESTATION_ENV.bundle]: '0',
    [ATTESTATION_ENV.signKey]: 'keys/sign.pem',
  });
  assert.deepEqual(settings, {
    targetFile: resolve('some/target.json'),
    profile: 'strict',
    protocols: ['h1', 'h2'],
    protocolsNotOffered: ['h2'],
    requestTimeoutMs: 2500,
    maxRps: 0.5,
    userAgent: 'python-requests/2.31.0',
    maxRetries: 0,
    retryBudgetMs: 1500,
    maxListPages: 3,
    maxListRecords: 250,
    failOnIncomplete: true,
    reportDirectory: resolve('out'),
    bundle: false,
    signKeyFile: resolve('keys/sign.pem'),
    preflightOnly: true,
  });
});

test('an invalid variable is a usage error naming it, its value and what is allowed — never a default', () => {
  const cases: [string, string, RegExp][] = [
    [ENV.requestTimeout, 'abc', /more than 0 and at most 600/],
    [ENV.requestTimeout, '700', /more than 0 and at most 600/],
    [ENV.requestTimeout, '0', /more than 0 and at most 600/],
    [ENV.maxRps, '0', /from 0\.1 to 10000/],
    [ENV.userAgent, 'curl/8 ', /1 to 512 visible ASCII characters and spaces/],
    [ENV.userAgent, ' curl', /1 to 512 visible ASCII characters and spaces/],
    [ENV.userAgent, 'x'.repeat(513), /1 to 512 visible ASCII characters and spaces/],
    [ENV.maxRetries, '2.5', /a whole number of retries from 0 to 20/],
    [ENV.retryBudget, '-1', /seconds from 0 to 3600/],
    [ENV.maxListPages, '1001', /a whole number of pages from 1 to 1000/],
    [ENV.maxListRecords, 'many', /a whole number of records from 1 to 100000/],
    [ENV.profile, 'lenient', /use default or strict/],
    [ENV.protocols, 'h3', /name h1, h2 or both/],
    [ENV.protocolsNotOffered, 'http/1.1', /name h1, h2 or both/],
    [ATTESTATION_ENV.bundle, 'yes', /use 1 \(on\) or 0 \(off\)/],
    [REPORT_ENV.failOnIncomplete, 'true', /use 1 \(on\) or 0 \(off\)/],
    [ENV.preflightOnly, '2', /use 1 \(on\) or 0 \(off\)/],
  ];
  for (const [name, value, allowed] of cases)
    assert.throws(
      () => readRunSettings({ [name]: value }),
      (error: Error) =>
        error instanceof UsageError &&
        error.message.startsWith(`Invalid ${name}`) &&
        error.message.includes(value) &&
        error.message.includes('in the environment') &&
        allowed.test(error.message),
      `${name}=${value}`,
    );
});

test('a flag and its variable share the bounds: the same values are refused, in the same words', () => {
  const envMessage = (name: string, value: string): string => {
    try {
      readRunSettings({ [name]: value });
    } catch (error) {
      return (error as Error).message;
    }
    return 'accepted';
  };
  const flagMessage = (flag: string, value: string): string => {
    try {
      splitOptions([`${flag}=${value}`]);
    } catch (error) {
      return (error as Error).message;
    }
    return 'accepted';
  };
  const allowed = (message: string): string => message.replace(/^[^:]*: /, '');
  for (const [flag, name] of [
    ['--request-timeout', ENV.requestTimeout],
    ['--max-retries', ENV.maxRetries],
    ['--retry-budget', ENV.retryBudget],
    ['--max-rps', ENV.maxRps],
    ['--max-list-pages', ENV.maxListPages],
    ['--max-list-records', ENV.maxListRecords],
  ] as const)
    for (const value of ['abc', '-1', '0', '0.05', '1.5', '600', '601', '3601', '20000'])
      assert.equal(allowed(flagMessage(flag, value)), allowed(envMessage(name, value)), `${flag} ${value}`);
  assert.match(flagMessage('--request-timeout', '700'), /^Invalid --request-timeout "700": /);
});

test('read once for each set of values: the same object until a setting changes', () => {
  const first = readRunSettings({ [ENV.maxRps]: '5', UNRELATED: 'a' });
  assert.equal(readRunSettings({ [ENV.maxRps]: '5', UNRELATED: 'b' }), first);
  assert.ok(Object.isFrozen(first));
  assert.notEqual(readRunSettings({ [ENV.maxRps]: '6' }), first);
});

test("a process's settings are the value handed to it, never its environment's variables", () => {
  const saved = process.env[ENV.maxRetries];
  try {
    // No value handed over (a unit test): the defaults, whatever the environment says.
    process.env[ENV.maxRetries] = '7';
    assert.equal(runSettings().maxRetries, 4);
    // A worker installs its project's value; a variable set afterwards changes nothing.
    useRunSettings(readRunSettings({ [ENV.maxRetries]: '8' }));
    assert.equal(runSettings().maxRetries, 8);
    process.env[ENV.maxRetries] = '9';
    assert.equal(runSettings().maxRetries, 8);
  } finally {
    useRunSettings(readRunSettings({}));
    if (saved === undefined) delete process.env[ENV.maxRetries];
    else process.env[ENV.maxRetries] = saved;
  }
});

test('the hand-over is the resolved value, whole: flags win over variables, and undefined fields stay', () => {
  const settings = resolveRunSettings(
    { maxRps: '5', failOnIncomplete: true, bundle: false },
    { [ENV.maxRps]: '2', [ENV.maxRetries]: '3' },
  );
  assert.equal(settings.maxRps, 5);
  assert.equal(settings.maxRetries, 3);
  assert.equal(settings.failOnIncomplete, true);
  assert.equal(settings.bundle, false);
  const handed = handedOverSettings({ [RUN_SETTINGS_VARIABLE]: handOverOf(settings) });
  assert.deepEqual(handed, settings);
  assert.ok(handed && 'profile' in handed, 'an undefined setting is still a key of the value');
  assert.equal(handedOverSettings({}), undefined);
  assert.throws(
    () => resolveRunSettings({ maxRps: '0' }, {}),
    (error: Error) => error instanceof UsageError && error.message.startsWith('Invalid --max-rps "0": '),
  );
});

test('a hand-over that no entry point wrote is refused by name, never taken as the settings', () => {
  // A field named by a secret (a public fixture-like test value) is not echoed.
  const secret = 'mbk_prod_Q7xT2vLm9RkP4sWz8NcY3bHd6JfG1aE5';
  for (const text of [
    '{not json',
    '[1]',
    '"5"',
    'null',
    '{"maxRps":5,"unlimited":true}',
    `{"${secret}":1}`,
  ]) {
    assert.throws(
      () => handedOverSettings({ [RUN_SETTINGS_VARIABLE]: text }),
      (error: Error) =>
        error instanceof UsageError &&
        error.message.startsWith(`${RUN_SETTINGS_VARIABLE} is set, but `) &&
        error.message.includes('unset it') &&
        !error.message.includes(secret),
      text,
    );
  }
});

test('the run and merge commands refuse an invalid variable with exit 2 and the message, no stack trace', async () => {
  for (const value of ['abc', '700']) {
    const run = await runMain(['run'], cleanEnv({ [ENV.requestTimeout]: value }));
    assert.equal(run.code, 2, run.stderr);
    assert.match(
      run.stderr,
      new RegExp(
        `Invalid ${ENV.requestTimeout} "${value}" in the environment: give a number of seconds, more than 0 and at most 600`,
      ),
    );
    assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace');
  }
  // merge reads the same settings (its reports, the bundle): refused the same way.
  const folder = scratchDirectory('settings-merge-');
  try {
    const merge = await runMain(['merge', folder], cleanEnv({ [REPORT_ENV.failOnIncomplete]: 'yes' }));
    assert.equal(merge.code, 2, merge.stderr);
    assert.match(
      merge.stderr,
      /Invalid CONFORMANCE_FAIL_ON_INCOMPLETE "yes" in the environment: use 1 \(on\) or 0 \(off\)/,
    );
    assert.doesNotMatch(merge.stderr, /\n\s+at /, 'no stack trace');
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});

test("the lint rule's lists are the settings' variables", () => {
  assert.deepEqual([...SETTING_VARIABLE_NAMES].sort(), [...SETTING_VARIABLES].sort());
  const keysOfSettings = [ENV, REPORT_ENV, ATTESTATION_ENV].flatMap((table) =>
    Object.entries(table).flatMap(([key, name]) => (SETTING_VARIABLES.includes(name) ? [key] : [])),
  );
  assert.deepEqual([...SETTING_KEYS].sort(), keysOfSettings.sort());
});

test('the lint rule refuses a read of a setting outside the settings module, not a write', () => {
  const linter = new Linter({ configType: 'flat' });
  const lint = (code: string): number =>
    linter.verify(
      code,
      [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser }, rules: SETTINGS_READ_ONCE }],
      { filename: 'conformance/requests/sample.ts' },
    ).length;
  const prelude = "import { ENV, REPORT_ENV } from '../env.ts';\nconst env: NodeJS.ProcessEnv = {};\n";
  for (const read of [
    'const a = process.env[ENV.requestTimeout];',
    'const a = Number(env[ENV.maxRps] ?? 0);',
    "const a = env[REPORT_ENV.directory] || 'reports';",
    'const a = process.env.CONFORMANCE_MAX_RPS;',
    "const a = process.env['CONFORMANCE_PROFILE'];",
    'const { CONFORMANCE_PROTOCOLS } = process.env;',
  ])
    assert.equal(lint(prelude + read), 1, read);
  for (const notARead of [
    "env[ENV.profile] = 'strict';",
    'delete env[ENV.maxRps];',
    'const a = process.env[ENV.trafficFile];',
    'const help = `env ${ENV.requestTimeout}`;',
  ])
    assert.equal(lint(prelude + notARead), 0, notARead);
});

test('the lint rule applies everywhere but the settings module, the table of names and the tests', async () => {
  const eslint = new ESLint({ cwd: REPO_ROOT });
  // Whether the file's no-restricted-syntax holds the settings' selectors (tests/ has one of its
  // own, for temporary directories).
  const rule = async (file: string): Promise<boolean> =>
    JSON.stringify(
      ((await eslint.calculateConfigForFile(file)) as { rules?: Record<string, unknown> }).rules?.[
        'no-restricted-syntax'
      ] ?? null,
    ).includes('A run setting is resolved once');
  for (const file of [
    'conformance/requests/send.ts',
    'conformance/run/reporter.ts',
    'library/projects.ts',
    'specs/transport.spec.ts',
    'specs/rules/transport.ts',
    'playwright.config.ts',
    'mutation/campaign.ts',
    'cli/commands/run.ts',
  ])
    assert.ok(await rule(file), file);
  for (const file of ['conformance/settings.ts', 'conformance/env.ts', 'tests/conformance/settings.test.ts'])
    assert.equal(await rule(file), false, file);
});
