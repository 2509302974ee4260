// The target file of a running independent implementation, as its operator would write it: every
// address and every credential (each by the name of the environment variable holding it).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IndependentServer } from './server.ts';
import { unusedPort, writeTargetFile } from './run-support.ts';
import { scratchDirectory } from '../support/scratch.ts';

export interface WrittenTarget {
  file: string;
  /** The variables the target file names, with the keys: the environment of the run. */
  env: Record<string, string>;
}

/** A front the implementation is reached through: its port, and the CA of its certificate. */
export interface Front {
  port: number;
  caPem: string;
  name: string;
}

export async function writeIndependentTarget(
  server: IndependentServer,
  front?: Front,
): Promise<WrittenTarget> {
  const work = scratchDirectory('independent-implementation-');
  writeFileSync(join(work, 'ca.pem'), front?.caPem ?? server.caPem);
  const { keys } = server;
  const env = {
    INDEPENDENT_ACME_LIVE_FULL: keys.acmeLiveFull,
    INDEPENDENT_ACME_LIVE_READ_ONLY: keys.acmeLiveReadOnly,
    INDEPENDENT_ACME_LIVE_INVOICES_ONLY: keys.acmeLiveInvoicesOnly,
    INDEPENDENT_ACME_LIVE_REVOKED: keys.acmeLiveRevoked,
    INDEPENDENT_ACME_TEST_FULL: keys.acmeTestFull,
    INDEPENDENT_GLOBEX_LIVE_FULL: keys.globexLiveFull,
    INDEPENDENT_ACME_LIVE_PROBE: keys.acmeLiveProbe,
  };
  const origin = (host: string): string => `https://${host}.localhost:${front?.port ?? server.port}/v1`;
  // Without a plain listener, plain HTTP is tried where nothing listens: it is refused.
  const plainHttpPort = server.plainHttpPort ?? (await unusedPort());
  const file = writeTargetFile(work, 'target.json', {
    name: front?.name ?? 'independent implementation (Fastify)',
    baseUrl: origin('acme.api'),
    otherTenantBaseUrl: origin('globex.api'),
    sandboxBaseUrl: origin('acme.sandbox.api'),
    plainHttpBaseUrl: `http://acme.api.localhost:${plainHttpPort}/v1`,
    credentials: {
      fullAccess: 'INDEPENDENT_ACME_LIVE_FULL',
      readOnly: 'INDEPENDENT_ACME_LIVE_READ_ONLY',
      noCustomersPermission: 'INDEPENDENT_ACME_LIVE_INVOICES_ONLY',
      revoked: 'INDEPENDENT_ACME_LIVE_REVOKED',
      sandbox: 'INDEPENDENT_ACME_TEST_FULL',
      otherTenant: 'INDEPENDENT_GLOBEX_LIVE_FULL',
      probe: 'INDEPENDENT_ACME_LIVE_PROBE',
    },
    caFile: 'ca.pem',
    hosts: { '*.localhost': '127.0.0.1' },
  });
  return { file, env };
}
