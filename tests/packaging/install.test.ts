// The kit used without cloning it, as a QA team or a vendor would: `npm pack`, the tarball
// installed into an empty project (from the npm cache that `npm ci` filled), then the installed
// `tenant-auth-conformance` serves the reference server and certifies it from a target file kept
// in that project, writing its reports there and nothing inside the installed package.
// The set-up is installed-kit.ts's; the tests, by what they are about, are in the files named below.
// They share one pack and one install (a few minutes of CPU), so they run in this one file, in order:
// a command's output is read by a later test (the run by target file's report by compare). The
// docs' blocks run last, from the same tarball and against the same served reference (doc-blocks.ts).
import { describe } from 'node:test';
import { installedKitPerSuite } from './installed-kit.ts';
import { installedCommandTests } from './installed-commands.ts';
import { installedPackageTests } from './installed-package.ts';
import { teamProjectPerSuite, teamTypeScriptTests } from './team-project.ts';
import { teamPlaywrightTests } from './team-playwright.ts';
import { docBlockTests, emptyProject } from './doc-blocks.ts';
import { typeChecksPerSuite } from './type-checks.ts';
import { installedExamplesTests } from './installed-examples.ts';
import { ciYamlTests } from './ci-yaml.ts';

describe('the packed kit, installed into an empty project', () => {
  const installedKit = installedKitPerSuite();
  installedCommandTests(installedKit);
  installedPackageTests(installedKit);
  ciYamlTests(installedKit);

  describe("a team's project: the kit from code, type-checked against its declarations", () => {
    const teamFolder = teamProjectPerSuite(installedKit);
    // The team's type-checks and the docs' in one compiler process, made by the first test to ask.
    const typeChecks = typeChecksPerSuite(installedKit, teamFolder, emptyProject);
    teamTypeScriptTests(installedKit, teamFolder, typeChecks);
    teamPlaywrightTests(installedKit, teamFolder);
    // Last: a block may change the served reference (the admin API's block makes and revokes keys).
    docBlockTests(installedKit, teamFolder, typeChecks);
    installedExamplesTests(installedKit, teamFolder);
  });
});
