// docs/ci/conformance-gate.yml, the CI job a team copies, run from the packed tarball as its
// comment says to until the package is published: its gate step's command with
// `tenant-auth-conformance@VERSION` written as `--package ./FILE.tgz tenant-auth-conformance`, in an
// empty checkout holding the tarball by the name `npm pack` gives it. The checkout has no target
// file (a team's repository has its own): the installed command reads its options and answers that,
// exit 2 — a whole run of the suite would add minutes for what the served kit's runs already show.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { REPO_ROOT } from '../support/conformance-run.ts';
import { cleanEnv } from '../support/reference-cli.ts';
import { run, type InstalledKit } from './installed-kit.ts';

/** The YAML's gate step: the folded lines of its `run: >-`, up to its `env:`, as one command. */
export function gateCommand(yaml: string): string | undefined {
  const step = /- run: >-\n((?:[ \t]+\S.*\n)+?)[ \t]+env:/.exec(yaml);
  return step?.[1]
    ?.split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .join(' ');
}

export function ciYamlTests(installedKit: () => InstalledKit): void {
  test("the CI YAML's gate step runs from the packed tarball as its comment says (npx --package ./FILE.tgz)", async () => {
    const kit = installedKit();
    const yaml = readFileSync(join(REPO_ROOT, 'docs', 'ci', 'conformance-gate.yml'), 'utf8');
    const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
      version: string;
    };
    // The comment's form names the file `npm pack` wrote.
    const form = /npx --yes --package \.\/(\S+\.tgz) tenant-auth-conformance run/.exec(yaml);
    const tarball = form?.[1] ?? '';
    assert.equal(tarball, basename(kit.tarballPath), 'the YAML names the tarball npm pack writes');
    const command = gateCommand(yaml) ?? '';
    const published = `tenant-auth-conformance@${version}`;
    assert.ok(command.startsWith(`npx --yes ${published} run --target `), command);
    const fromTarball = command.replace(published, `--package ./${tarball} tenant-auth-conformance`);
    const checkout = mkdtempSync(join(kit.work, 'ci-checkout-'));
    copyFileSync(kit.tarballPath, join(checkout, tarball));
    // npm's cache, which `npm ci` filled, holds the kit's dependencies, as for the install above.
    const ran = await run(
      'bash',
      ['-c', fromTarball],
      checkout,
      cleanEnv({ npm_config_prefer_offline: 'true' }),
    );
    const output = `${ran.stdout}\n${ran.stderr}`;
    assert.equal(ran.code, 2, `${fromTarball}\n${output}`);
    assert.match(output, /Invalid target file .*conformance\/staging\.jsonc/);
    assert.doesNotMatch(output, /\n\s+at .+:\d+:\d+\)?\n/, 'no stack trace');
  });
}
