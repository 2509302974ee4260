// What the installed package holds, read after its commands ran: its own files and nothing a run
// wrote, every document its pages link to, and a manifest with no scripts and no development
// dependencies (packing put the repository's own manifest back).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, sep } from 'node:path';
import { REPO_ROOT } from '../support/conformance-run.ts';
import { brokenLinks } from '../../scripts/doc-links.ts';
import { type InstalledKit } from './installed-kit.ts';

export function installedPackageTests(installedKit: () => InstalledKit): void {
  test('nothing was written inside the installed package', () => {
    const { project } = installedKit();
    const installed = join(project, 'node_modules', 'tenant-auth-conformance');
    assert.deepEqual(readdirSync(installed).sort(), [
      'CONTRIBUTING.md',
      'LICENSE',
      'README.md',
      'bench',
      'conformance',
      'dist',
      'docs',
      'examples',
      'fixtures',
      'library',
      'package.json',
      'reference-server',
      'schemas',
      'spec',
    ]);
    // The documents the README names, beside the one the server serves (the OpenAPI document).
    assert.ok(existsSync(join(installed, 'docs', 'openapi.json')));
    assert.deepEqual(readdirSync(join(installed, 'library')).sort(), ['index.api.md', 'playwright.api.md']);
    // The code is dist/'s: of the two folders' own, only their maps (README.md), which pages link to.
    assert.deepEqual(readdirSync(join(installed, 'conformance')), ['README.md']);
    assert.deepEqual(readdirSync(join(installed, 'reference-server')), ['README.md']);
  });

  test('everything a page of the package links to is in the package, beside a LICENSE', () => {
    const { project } = installedKit();
    const installed = join(project, 'node_modules', 'tenant-auth-conformance');
    // Every Markdown page it ships, as a user reads them in node_modules: README, docs/, bench/…
    const pages = readdirSync(installed, { recursive: true, encoding: 'utf8' })
      .filter((path) => path.endsWith('.md') && !path.split(sep).includes('node_modules'))
      .map((path) => path.split(sep).join('/'));
    assert.ok(pages.includes('README.md') && pages.some((page) => page.startsWith('docs/')), pages.join());
    assert.deepEqual(brokenLinks(installed, pages), []);
    assert.match(readFileSync(join(installed, 'LICENSE'), 'utf8'), /^MIT License/);
  });

  test('the installed manifest holds what a user needs: no scripts, no development dependencies', () => {
    const { project, installOutput } = installedKit();
    const installed = JSON.parse(
      readFileSync(join(project, 'node_modules', 'tenant-auth-conformance', 'package.json'), 'utf8'),
    ) as Record<string, unknown>;
    const repository = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    assert.equal(installed.scripts, undefined);
    assert.equal(installed.devDependencies, undefined);
    for (const field of ['name', 'version', 'license', 'type', 'exports', 'engines', 'bin', 'dependencies'])
      assert.deepEqual(installed[field], repository[field], field);
    // npm said nothing of install scripts when the project installed it (a prepare script is one).
    assert.doesNotMatch(installOutput, /install script/i);
    // Packing put the repository's own manifest back.
    assert.ok(!existsSync(join(REPO_ROOT, '.package.json.packing')));
    assert.ok(typeof repository.scripts === 'object');
  });
}
