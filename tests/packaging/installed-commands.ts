// The installed kit's commands, as a user runs them in their project: serve keeps its files there,
// a run by target file and by URL certifies the served reference, and every command runs from the
// tarball, answering bad input with a message and an exit code, never a stack trace.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RULES } from '../../conformance/catalog/rules.ts';
import type { ConformanceReport } from '../../schemas/generated/conformance-report.ts';
import { REPO_ROOT, referenceTargetOn } from '../support/conformance-run.ts';
import { scanDirectory, scanText, secretForms } from '../support/artifact-scan.ts';
import { cleanEnv, KIT_SUBCOMMANDS } from '../support/reference-cli.ts';
import { CREDENTIAL_VARIABLES } from '../../conformance/deployment/url-target.ts';
import type { CredentialName } from '../../conformance/deployment/target.ts';
import { BIN, exportedKeys, run, kit, type InstalledKit } from './installed-kit.ts';

export function installedCommandTests(installedKit: () => InstalledKit): void {
  test('serve keeps its certificates and data under the project, not in the package', () => {
    const { project, serverOutput } = installedKit();
    assert.ok(existsSync(join(project, '.certs', 'ca.crt')), serverOutput());
    assert.match(serverOutput(), /npx tenant-auth-conformance keys/);
  });

  test('run --target with a target file of the project: CONFORMANT, reports in the project', async () => {
    const { project, ports, keys } = installedKit();
    const target = referenceTargetOn(ports, {
      name: 'installed reference',
      // Relative to the target file.
      caFile: '../.certs/ca.crt',
      hosts: { '*.localhost': '127.0.0.1' },
    });
    mkdirSync(join(project, 'targets'), { recursive: true });
    writeFileSync(join(project, 'targets', 'reference.json'), JSON.stringify(target, null, 2));
    // Through `npx`, as the README shows it: the one command that proves npx runs the installed
    // kit (every other command starts its node_modules/.bin file: installed-kit.ts).
    const result = await run(
      'npx',
      [BIN, 'run', '--target', 'targets/reference.json'],
      project,
      cleanEnv(keys),
    );
    assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`);
    assert.match(result.stdout, /VERDICT: CONFORMANT \(installed reference/);
    const report = JSON.parse(
      readFileSync(join(project, 'reports', 'conformance.json'), 'utf8'),
    ) as ConformanceReport;
    assert.equal(report.verdict, 'CONFORMANT');
    // Every rule but AUTH-COOKIE-NOT-CREDENTIAL, not applicable: the reference sets no cookie.
    assert.equal(report.summary.pass, RULES.length - 1);
    assert.equal(report.summary.notApplicable, 1);
    assert.ok(existsSync(join(project, 'reports', 'html', 'index.html')));
    // The installed kit redacts as the repository's does: no key in any report or on the console.
    const forms = secretForms(keys);
    const { findings, filesScanned } = scanDirectory(join(project, 'reports'), forms);
    findings.push(...scanText('stdout', result.stdout, forms), ...scanText('stderr', result.stderr, forms));
    assert.ok(filesScanned > 3);
    assert.deepEqual(findings, []);
  });

  test('run --base-url with the keys of keys --export --names conformance: each rule passes or says what to give', async () => {
    const { project, ports, keys } = installedKit();
    // The variables a target by URL reads, as the served kit's keys command prints them.
    const exported = await kit(project, ['keys', '--export', '--names', 'conformance']);
    assert.equal(exported.code, 0, exported.stderr);
    const urlKeys = exportedKeys(exported.stdout, 'CONFORMANCE_KEY_');
    assert.equal(urlKeys.CONFORMANCE_KEY_FULL_ACCESS, keys.REFERENCE_KEY_ACME_PROD_FULL);
    assert.equal(urlKeys.CONFORMANCE_KEY_OTHER_TENANT, keys.REFERENCE_KEY_GLOBEX_PROD_FULL);
    // No probe: a target by URL alone does not know the served plain-HTTP port.
    delete urlKeys.CONFORMANCE_KEY_PROBE;
    const result = await kit(
      project,
      ['run', '--base-url', `https://acme.api.localhost:${ports.https}/v1`, '--ca-file', '.certs/ca.crt'],
      cleanEnv({ ...urlKeys, CONFORMANCE_REPORT_DIR: 'by-url' }),
    );
    assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`);
    const report = JSON.parse(
      readFileSync(join(project, 'by-url', 'conformance.json'), 'utf8'),
    ) as ConformanceReport;
    assert.equal(report.verdict, 'INCOMPLETE');
    const given = new Set(Object.keys(urlKeys));
    for (const rule of RULES) {
      const result = report.rules.find((candidate) => candidate.id === rule.id);
      const missing = rule.needs.filter((input) =>
        input.startsWith('credentials.')
          ? !given.has(CREDENTIAL_VARIABLES[input.slice('credentials.'.length) as CredentialName])
          : true,
      );
      if (missing.length === 0) {
        assert.equal(result?.verdict, 'pass', rule.id);
        continue;
      }
      assert.equal(result?.verdict, 'not-evaluated', rule.id);
      // In the terms of what was given: options and variables, never a target file.
      assert.doesNotMatch(result?.message ?? '', /target file/, rule.id);
      assert.match(
        result?.message ?? '',
        /--other-tenant-base-url|--sandbox-base-url|CONFORMANCE_KEY_PROBE is not set/,
        rule.id,
      );
    }
  });

  test('rules --json parses to the whole catalog; --version is the package version', async () => {
    const { project } = installedKit();
    const rules = await kit(project, ['rules', '--json']);
    assert.equal(rules.code, 0, rules.stderr);
    assert.deepEqual(
      (JSON.parse(rules.stdout) as { id: string }[]).map((rule) => rule.id),
      RULES.map((rule) => rule.id),
    );
    const version = await kit(project, ['--version']);
    const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    assert.equal(version.stdout.trim(), manifest.version);
  });

  test('every command runs from the tarball: init, keygen, compare, verify, merge, client-report', async () => {
    const { project, ports } = installedKit();
    const init = await kit(project, ['init', 'https://acme.api.example.com/v1', '--output', 'starter.jsonc']);
    assert.equal(init.code, 0, init.stderr);
    assert.ok(existsSync(join(project, 'starter.jsonc')));
    const keygen = await kit(project, ['keygen', '--out', 'kit-signing']);
    assert.equal(keygen.code, 0, keygen.stderr);
    assert.ok(existsSync(join(project, 'kit-signing.key')) && existsSync(join(project, 'kit-signing.pub')));
    // The report of the run by target file (an earlier test), in a matrix.
    const compare = await kit(project, ['compare', 'reports/conformance.json']);
    assert.equal(compare.code, 0, compare.stderr);
    assert.match(compare.stdout, /TRANSPORT-HTTPS-CERT/);
    // Not a bundle: a usage error, never a stack trace.
    const verify = await kit(project, ['verify', 'targets']);
    assert.equal(verify.code, 2, verify.stderr);
    assert.doesNotMatch(verify.stderr, /\n\s+at /);
    const merge = await kit(project, ['merge', 'no-such-directory']);
    assert.notEqual(merge.code, 0);
    assert.doesNotMatch(merge.stderr, /\n\s+at /);
    for (const command of KIT_SUBCOMMANDS) {
      const help = await kit(project, [command, '--help']);
      assert.equal(help.code, 0, `${command} --help: ${help.stderr}`);
    }
    // The served reference's journal holds the runs' requests: judged, never a crash.
    const report = await kit(project, [
      'client-report',
      '--admin-url',
      `https://admin.localhost:${ports.https}/v1`,
    ]);
    assert.ok(report.code === 0 || report.code === 1, `${report.code}: ${report.stderr}`);
    assert.doesNotMatch(report.stderr, /ENOENT|\n\s+at /);
    const written = JSON.parse(
      readFileSync(join(project, 'reports', 'client', 'client-report.json'), 'utf8'),
    ) as {
      suite: { name: string };
    };
    assert.equal(written.suite.name, 'tenant-auth-conformance');
  });

  test('no command prints a stack trace: bad input to each is a message and an exit code', async () => {
    const { project } = installedKit();
    writeFileSync(join(project, 'not-json.txt'), 'not json\n');
    const cases: [string[], number][] = [
      [['run', '--nope'], 2],
      [['run', '--target', 'no-such-target.json'], 2],
      [['run', '--base-url', 'not-a-url'], 2],
      [['serve', '--port', 'abc'], 2],
      [['serve', '--fixtures', 'not-json.txt', '--port', '0', '--http-port', '0', '--data-dir', 'off'], 3],
      // A certificate directory that cannot be made (a file stands where its parent should be).
      [
        ['serve', '--cert-dir', 'not-json.txt/certs', '--port', '0', '--http-port', '0', '--data-dir', 'off'],
        3,
      ],
      [['rules', 'extra'], 2],
      [['init', 'not-a-url'], 2],
      [['init', 'https://acme.api.example.com/v1', '--output', 'no-such-folder/target.jsonc'], 2],
      [['keys', '--fixtures', 'not-json.txt'], 3],
      [['keys', 'no_such_key'], 2],
      [['keys', '--export', '--names', 'other'], 2],
      [['compare', 'not-json.txt'], 2],
      [['merge', 'not-json.txt'], 2],
      [['verify', 'no-such-bundle'], 2],
      [['keygen', '--out', 'no-such-folder/key'], 2],
      [['client-report', '--since', 'yesterday'], 2],
      [['no-such-command'], 2],
    ];
    for (const [args, expected] of cases) {
      const result = await kit(project, args);
      const output = `${result.stdout}\n${result.stderr}`;
      assert.equal(result.code, expected, `${args.join(' ')}: ${output}`);
      assert.doesNotMatch(output, /^\s+at \S|node:internal/m, args.join(' '));
      assert.ok(result.stderr.trim().length > 0, `${args.join(' ')} says what was wrong`);
    }
  });
}
