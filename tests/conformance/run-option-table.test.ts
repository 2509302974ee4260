// The table of run options (conformance/run-option-table.ts) is the one place an option is
// declared: every row reaches `run --help`, the docs' options table and a team's config options,
// each row's default has the type its setting says, and the lint rule refuses resolving the
// settings again below the entry points.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { RUN_OPTIONS, resolveRunSettings, SETTING_VARIABLES } from '../../conformance/settings.ts';
import { runHelp } from '../../conformance/run/run.ts';
import { formattedRunningDoc, RUNNING_DOC } from '../../scripts/generate-docs.ts';
import { REPO_ROOT } from '../support/reference-client.ts';

const { SETTING_VARIABLE_NAMES, SETTINGS_RESOLVED_ONCE, SETTINGS_ENTRY_POINTS } = (await import(
  pathToFileURL(join(REPO_ROOT, 'eslint.config.js')).href
)) as {
  SETTING_VARIABLE_NAMES: string[];
  SETTINGS_RESOLVED_ONCE: Linter.RulesRecord;
  SETTINGS_ENTRY_POINTS: string[];
};

const userRows = RUN_OPTIONS.filter((row) => row.internal === undefined);

test('every row a user gives is in --help: its flag, the flag that turns it off, and its variable', () => {
  const help = runHelp();
  for (const row of userRows) {
    assert.ok(row.flag, `${row.key} has a flag`);
    assert.match(help, new RegExp(`^  --${row.flag}\\b`, 'm'), row.key);
    if (row.offFlag !== undefined) assert.match(help, new RegExp(`^  --${row.offFlag}\\b`, 'm'), row.key);
    assert.ok(help.includes(`env ${row.variable}`), `${row.key}: env ${row.variable}`);
  }
});

test("the docs' options table is the one the table makes (npm run docs writes it)", async () => {
  assert.equal(readFileSync(RUNNING_DOC, 'utf8'), await formattedRunningDoc(), 'run `npm run docs`');
  const doc = readFileSync(RUNNING_DOC, 'utf8');
  for (const row of userRows) assert.ok(doc.includes(`| \`--${row.flag}`), `${row.key} in the docs`);
});

test("every row is an option of a team's config, or says why not", () => {
  // The library's public types, as the API report records them (npm run api-report).
  const api = readFileSync(join(REPO_ROOT, 'library', 'playwright.api.md'), 'utf8');
  for (const row of RUN_OPTIONS) {
    if ('none' in row.team) assert.ok(row.team.none.length > 20, `${row.key}: why no team option`);
    else assert.match(api, new RegExp(`\\b${row.team.option}\\?: `), `${row.key}: ${row.team.option}`);
  }
});

test("a row's default is its setting's value unset: undefined only for a row without one", () => {
  const defaults = resolveRunSettings({}, {});
  for (const row of RUN_OPTIONS)
    assert.equal(defaults[row.key] === undefined, row.defaultText === undefined, row.key);
});

test('one row, one flag and one variable: none is named twice', () => {
  const flags = RUN_OPTIONS.flatMap((row) => [row.flag, row.offFlag]).filter((flag) => flag !== undefined);
  assert.equal(new Set(flags).size, flags.length);
  assert.equal(new Set(SETTING_VARIABLES).size, SETTING_VARIABLES.length);
  assert.deepEqual(SETTING_VARIABLE_NAMES, [...SETTING_VARIABLES], "the lint rule's list is the table's");
});

test('the lint rule refuses resolving the settings again below the entry points', () => {
  const linter = new Linter({ configType: 'flat' });
  const lint = (code: string): number =>
    linter.verify(
      code,
      [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser }, rules: SETTINGS_RESOLVED_ONCE }],
      { filename: 'conformance/requests/sample.ts' },
    ).length;
  for (const resolving of [
    'const a = readRunSettings(process.env);',
    'const a = resolveRunSettings({}, env);',
    'const a = handedOverSettings(process.env);',
  ])
    assert.equal(lint(`const env = {};\n${resolving}`), 1, resolving);
  assert.equal(lint('const a = runSettings().maxRps;'), 0);
  for (const entry of [
    'conformance/run/run.ts',
    'cli/commands/merge.ts',
    'playwright.config.ts',
    'library/projects.ts',
  ])
    assert.ok(SETTINGS_ENTRY_POINTS.includes(entry), entry);
});
