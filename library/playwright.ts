// `tenant-auth-conformance/playwright`: the conformance suite as Playwright projects for a team's
// own playwright.config.ts, and the kit's reports as a reporter (library/projects.ts).
export {
  conformanceProjects,
  conformanceReporter,
  type ConformanceProjectsOptions,
  type ConformanceReporterOptions,
  type ConformanceTarget,
} from './projects.ts';
export type { Profile } from '../conformance/deployment/target.ts';
export type { Protocol } from '../conformance/requests/protocols.ts';
