// Lint rules: the recommended sets, type-aware, so that a floating promise or an unsafe `any`
// in the request path is caught before review.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * The run's settings are read in one place, conformance/settings.ts (`runSettings()`), from the
 * variables env.ts names: reading one anywhere else, from `process.env` or an `env` passed on,
 * is refused. Writing one (the runner handing its flags on) is not a read. These lists are those
 * of SETTING_VARIABLES; tests/conformance/settings.test.ts holds them to it.
 */
export const SETTING_KEYS = [
  'targetFile',
  'profile',
  'protocols',
  'protocolsNotOffered',
  'preflightOnly',
  'requestTimeout',
  'maxRetries',
  'retryBudget',
  'maxRps',
  'maxListPages',
  'maxListRecords',
  'directory',
  'failOnIncomplete',
  'bundle',
  'signKey',
];
export const SETTING_VARIABLE_NAMES = [
  'CONFORMANCE_TARGET',
  'CONFORMANCE_PROFILE',
  'CONFORMANCE_PROTOCOLS',
  'CONFORMANCE_PROTOCOLS_NOT_OFFERED',
  'CONFORMANCE_PREFLIGHT_ONLY',
  'CONFORMANCE_REQUEST_TIMEOUT',
  'CONFORMANCE_MAX_RETRIES',
  'CONFORMANCE_RETRY_BUDGET',
  'CONFORMANCE_MAX_RPS',
  'CONFORMANCE_MAX_LIST_PAGES',
  'CONFORMANCE_MAX_LIST_RECORDS',
  'CONFORMANCE_REPORT_DIR',
  'CONFORMANCE_FAIL_ON_INCOMPLETE',
  'CONFORMANCE_BUNDLE',
  'CONFORMANCE_SIGN_KEY',
];
const anyOf = (names) => `/^(${names.join('|')})$/`;
/** Not a read: the target of an assignment, or of `delete`. */
const READ =
  ':not(AssignmentExpression > MemberExpression.left):not(UnaryExpression[operator="delete"] > MemberExpression)';
const SETTING_MESSAGE =
  'A run setting is read only in conformance/settings.ts: use runSettings() (or readRunSettings(env)) and its typed fields.';
export const SETTINGS_READ_ONCE = {
  'no-restricted-syntax': [
    'error',
    {
      // env[ENV.maxRps], process.env[REPORT_ENV.directory], …
      selector: `MemberExpression[computed=true][property.type="MemberExpression"][property.object.name=/^(ENV|REPORT_ENV|ATTESTATION_ENV)$/][property.property.name=${anyOf(SETTING_KEYS)}]${READ}`,
      message: SETTING_MESSAGE,
    },
    {
      // process.env.CONFORMANCE_MAX_RPS, env['CONFORMANCE_MAX_RPS'], …
      selector: `MemberExpression:matches([property.name=${anyOf(SETTING_VARIABLE_NAMES)}], [property.value=${anyOf(SETTING_VARIABLE_NAMES)}])${READ}`,
      message: SETTING_MESSAGE,
    },
    {
      // const { CONFORMANCE_MAX_RPS } = process.env
      selector: `VariableDeclarator[init.property.name="env"] > ObjectPattern > Property[key.name=${anyOf(SETTING_VARIABLE_NAMES)}]`,
      message: SETTING_MESSAGE,
    },
  ],
};

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'test-results/',
      'playwright-report/',
      'reports/',
      'dist/',
      // A team's project, type-checked against the packed kit (tests/packaging/install.test.ts).
      'tests/packaging/consumer/',
      '.certs/',
      'schemas/generated/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // A file is read whole: past 400 lines it holds more than one job, and is split by role.
      'max-lines': ['error', { max: 400, skipBlankLines: false, skipComments: false }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      // node:test's test() and describe() return promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['test', 'describe', 'it', 'suite'] },
          ],
        },
      ],
    },
  },
  {
    // Tests set and inspect the variables on purpose; the settings module and the table of names are where they live.
    ignores: ['tests/**', 'conformance/settings.ts', 'conformance/env.ts'],
    rules: SETTINGS_READ_ONCE,
  },
  {
    files: ['eslint.config.js', 'bench/test-file-times.mjs', 'bench/process-cpu.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
);
