// Lint rules: the recommended sets, type-aware, so that a floating promise or an unsafe `any`
// in the request path is caught before review.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

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
  { files: ['eslint.config.js', 'bench/test-file-times.mjs'], ...tseslint.configs.disableTypeChecked },
);
