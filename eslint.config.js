// Lint rules: the recommended sets, type-aware, so that a floating promise or an unsafe `any`
// in the request path is caught before review.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

import { tsImport } from 'tsx/esm/api';

/**
 * A run's settings are resolved once, at an entry point, from the variables the rows of
 * conformance/run-option-table.ts name, and handed down as a value: reading one anywhere else,
 * from `process.env` or an `env` passed on, is refused, and so is resolving them again
 * (`readRunSettings`, `resolveRunSettings`) below the entry points. Writing one (a test, an entry
 * point handing its flags on) is not a read. The lists are made from the table.
 */
const { RUN_OPTIONS } = await tsImport('./conformance/run-option-table.ts', import.meta.url);
/** The keys of env.ts's ENV, REPORT_ENV and ATTESTATION_ENV that name a setting's variable. */
const { ENV, REPORT_ENV, ATTESTATION_ENV } = await tsImport('./conformance/env.ts', import.meta.url);
export const SETTING_VARIABLE_NAMES = RUN_OPTIONS.map((row) => row.variable);
export const SETTING_KEYS = [ENV, REPORT_ENV, ATTESTATION_ENV].flatMap((table) =>
  Object.entries(table).flatMap(([key, name]) => (SETTING_VARIABLE_NAMES.includes(name) ? [key] : [])),
);
const anyOf = (names) => `/^(${names.join('|')})$/`;
/** Not a read: the target of an assignment, or of `delete`. */
const READ =
  ':not(AssignmentExpression > MemberExpression.left):not(UnaryExpression[operator="delete"] > MemberExpression)';
const SETTING_MESSAGE =
  "A run setting is resolved once, at an entry point: take the RunSettings value handed down (a fixture's `settings`, a project's `runSettings`, or runSettings() in the request layer).";
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

/** Where a run's settings may be resolved from flags and variables: the entry points, and the tests. */
export const SETTINGS_ENTRY_POINTS = [
  'conformance/settings.ts',
  'conformance/env.ts',
  'conformance/run/run.ts',
  'cli/commands/merge.ts',
  'playwright.config.ts',
  'library/projects.ts',
  'mutation/campaign.ts',
  'mutation/batch.config.ts',
  'tests/**',
];
export const SETTINGS_RESOLVED_ONCE = {
  'no-restricted-syntax': [
    ...SETTINGS_READ_ONCE['no-restricted-syntax'],
    {
      selector: 'CallExpression[callee.name=/^(readRunSettings|resolveRunSettings|handedOverSettings)$/]',
      message:
        'Settings are resolved once, at an entry point (eslint.config.js, SETTINGS_ENTRY_POINTS): take the value it handed down.',
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
    // Below the entry points, no setting is resolved again: one value is handed down.
    ignores: SETTINGS_ENTRY_POINTS,
    rules: SETTINGS_RESOLVED_ONCE,
  },
  {
    // One channel between the kit's processes: conformance/env.ts alone reads and writes the
    // environment (its hand-overs declared there once, its inputs given to the rest as values).
    // The settings' entry points above take the user's environment from it too (startingEnvironment,
    // inputEnvironment). tests/conformance/run/env-channel.test.ts holds the source tree to it.
    files: [
      'conformance/**/*.ts',
      'cli/**/*.ts',
      'library/**/*.ts',
      'kit/**/*.ts',
      'mutation/**/*.ts',
      'playwright.config.ts',
    ],
    ignores: ['conformance/env.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        {
          object: 'process',
          property: 'env',
          message:
            'Read and write the environment through conformance/env.ts: a hand-over with handOver()/setHandOvers(), an input from inputEnvironment() at the caller, passed down as a value.',
        },
      ],
    },
  },
  {
    // A test's temporary directory is tests/support/scratch.ts's: removed when the tests passed,
    // kept when one failed. One of its own would be left behind by every run.
    files: ['tests/**/*.ts'],
    ignores: ['tests/support/scratch.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'CallExpression[callee.name="tmpdir"]',
          message: "Make a test's temporary directory with scratchDirectory() (tests/support/scratch.ts).",
        },
      ],
    },
  },
  {
    files: ['eslint.config.js', 'bench/test-file-times.mjs', 'bench/process-cpu.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
);
