// What the config tells the reporter about the run (its metadata), and where reports go.
import type { ConformanceReport } from '../../schemas/generated/conformance-report.ts';
import type { Profile } from '../deployment/target.ts';

/** Carried in Playwright's config metadata, so that it survives blob reports and merge-reports. */
export interface RunMetadata {
  target: ConformanceReport['target'];
  profile: Profile;
  failOnIncomplete: boolean;
  /** The protocols every rule is checked over (HTTP/1.1, HTTP/2); older blobs have none. */
  protocols?: string[];
}
