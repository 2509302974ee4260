// The suite's four type-checks, by the TypeScript of the team's project, in one `tsc -b`: the team's
// own config against Node 20's types and against Node 22's (team-project.ts's tests), and the
// docs' TypeScript blocks with each entry point under the README's tsconfig, without DOM and with
// it (doc-blocks.ts's test). One compiler process parses and binds each file they share (the
// default libraries, Node 20's types) once, where a process per pair did it again; each project is
// still judged by its own part of the output.
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../support/conformance-run.ts';
import { blockMark, documentationBlocks, type FencedBlock } from '../docs/fenced-blocks.ts';
import { run, type InstalledKit } from './installed-kit.ts';

/** Each project's part of a `tsc -b --verbose` output, by the path of its config; and the exit code. */
export interface BuildChecked {
  code: number | null;
  output: string;
  sections: Map<string, string>;
}

/**
 * `tsc -b --verbose CONFIG…` in `cwd`, by the TypeScript of the team's project `team`.
 * `--verbose` heads each project's diagnostics with "Building project '…'", so each project's
 * verdict is read from its own section.
 */
export async function typeCheckedTogether(
  team: string,
  cwd: string,
  configs: readonly string[],
): Promise<BuildChecked> {
  const tsc = join(team, 'node_modules', '.bin', 'tsc');
  const checked = await run(tsc, ['-b', '--verbose', ...configs], cwd);
  const output = `${checked.stdout}\n${checked.stderr}`;
  const sections = new Map<string, string>();
  const heads = [...output.matchAll(/^.*Building project '([^']+)'\.\.\.$/gm)];
  heads.forEach((head, index) => {
    const from = (head.index ?? 0) + head[0].length;
    const to = heads[index + 1]?.index ?? output.length;
    // The next project's "is out of date because…" line ends this one's part; it names no error.
    sections.set(head[1] ?? '', output.slice(from, to));
  });
  return { code: checked.code, output, sections };
}

/** A project's part of `checked` passed: built, and no diagnostic in its section. */
export function assertProjectChecked(checked: BuildChecked, config: string): string {
  const section = checked.sections.get(config);
  assert.ok(section !== undefined, `${config} was not built:\n${checked.output}`);
  assert.doesNotMatch(section, /error TS\d+/, `${config}:\n${section}`);
  return section;
}

/** The docs' `ts doctest` blocks, in the order of the docs. */
export function typescriptDocBlocks(): FencedBlock[] {
  return documentationBlocks(REPO_ROOT).filter(
    (each) => each.language === 'ts' && blockMark(each).kind === 'doctest',
  );
}

/** The docs' TypeScript, written into a folder with the tarball installed (docsTypeScriptFolder). */
export interface DocsTypeScript {
  folder: string;
  /** The file each block was written to, in the order of the blocks. */
  names: string[];
  /** Its two configs, by path: the main entry's (no DOM) and the Playwright entry's (with DOM). */
  projects: string[];
}

/**
 * The docs' TypeScript blocks, a file importing each entry point and the package's example of a
 * team's config, in `folder` (the tarball installed), with the README's tsconfig twice: strict and
 * without skipLibCheck, the main entry's files with its lib alone (no DOM: its declarations must
 * reach no Playwright type), the Playwright entry's with DOM. Node's types are the team's (a reader
 * installs their own).
 */
export function docsTypeScriptFolder(
  folder: string,
  team: string,
  blocks: readonly FencedBlock[],
): DocsTypeScript {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  // The lib the README says `await using` needs, read from the README itself.
  const lib = JSON.parse(/"lib": (\[[^\]]*\])/.exec(readme)?.[1] ?? 'null') as string[] | null;
  assert.ok(lib, 'the README states the tsconfig lib');
  assert.match(readme, /"DOM"/, "the README states what Playwright's types need");
  const names = blocks.map((block) => `${block.file.replace(/\W/g, '-')}-${block.line}.ts`);
  blocks.forEach((block, index) => writeFileSync(join(folder, names[index]!), block.text));
  // A file importing each entry point, as a reader's project would.
  writeFileSync(
    join(folder, 'main-entry.ts'),
    "import * as kit from 'tenant-auth-conformance';\nvoid kit;\n",
  );
  writeFileSync(
    join(folder, 'playwright-entry.ts'),
    "import * as kit from 'tenant-auth-conformance/playwright';\nvoid kit;\n",
  );
  const usesPlaywright = (file: string): boolean =>
    /tenant-auth-conformance\/playwright|@playwright\/test/.test(readFileSync(join(folder, file), 'utf8'));
  // The package's example of a team's config, as shipped.
  copyFileSync(
    join(folder, 'node_modules', 'tenant-auth-conformance', 'examples', 'team-playwright.config.ts'),
    join(folder, 'team-playwright.config.ts'),
  );
  const files = [...names, 'main-entry.ts', 'playwright-entry.ts', 'team-playwright.config.ts'];
  const tsconfig = (name: string, withDom: boolean): string => {
    writeFileSync(
      join(folder, name),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          lib: withDom ? [...lib, 'DOM'] : lib,
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          types: ['node'],
          typeRoots: [join(team, 'node_modules', '@types')],
        },
        files: files.filter((file) => usesPlaywright(file) === withDom),
      }),
    );
    return join(folder, name);
  };
  return {
    folder,
    names,
    projects: [tsconfig('tsconfig.main.json', false), tsconfig('tsconfig.playwright.json', true)],
  };
}

/**
 * The team's config against Node 22's declarations (@types/node 22, a development dependency of
 * the repository under another name) as the only type root called `node`; its path. `listFiles`
 * lets the test see which declarations were read.
 */
function node22Config(team: string): string {
  const roots = join(team, 'node22-types');
  mkdirSync(roots, { recursive: true });
  symlinkSync(join(REPO_ROOT, 'node_modules', 'types-node-22'), join(roots, 'node'), 'dir');
  const config = {
    extends: './tsconfig.json',
    compilerOptions: { typeRoots: ['./node22-types'], listFiles: true },
  };
  writeFileSync(join(team, 'tsconfig.node22.json'), `${JSON.stringify(config)}\n`);
  return join(team, 'tsconfig.node22.json');
}

/** The four type-checks' outcome and what the docs' test runs afterwards. */
export interface SuiteTypeChecks {
  checked: BuildChecked;
  /** The team's configs, by path: its own (Node 20's types) and Node 22's. */
  team: { node20: string; node22: string };
  docs: DocsTypeScript;
}

/**
 * The suite's type-checks, made once, by whichever test asks first; `docsFolder` makes the empty
 * folder the docs' TypeScript is written to (doc-blocks.ts's emptyProject).
 */
export function typeChecksPerSuite(
  installedKit: () => InstalledKit,
  teamFolder: () => string,
  docsFolder: (kit: InstalledKit) => string,
): () => Promise<SuiteTypeChecks> {
  let checks: Promise<SuiteTypeChecks> | undefined;
  return () => {
    checks ??= (async () => {
      const team = teamFolder();
      const teamConfigs = { node20: join(team, 'tsconfig.json'), node22: node22Config(team) };
      const docs = docsTypeScriptFolder(docsFolder(installedKit()), team, typescriptDocBlocks());
      const checked = await typeCheckedTogether(team, team, [
        teamConfigs.node20,
        teamConfigs.node22,
        ...docs.projects,
      ]);
      return { checked, team: teamConfigs, docs };
    })();
    return checks;
  };
}
