// The embedded reference server of a run: each worker that checks it starts its own, in-process, on
// free ports (the set-up project too, for the preflight), with the certificates of the run's
// certificate directory, and hands its ports to the target through its environment
// (conformance/deployment/embedded-target.ts). One server per worker: nothing a rule does to one
// (a key revoked, a sign-in throttled) reaches another worker's rules.
import { startReferenceServer, type RunningReferenceServer } from '../../reference-server/server.ts';
import { DEFAULT_FIXTURES_FILE, loadFixtures } from '../../reference-server/store/fixtures.ts';
import { embeddedCertDir } from '../deployment/embedded-target.ts';
import { handOverVariables, setHandOvers, inputEnvironment } from '../env.ts';
import { ensureCertificates } from '../../reference-server/listeners/certificates.ts';
import { isMainModule } from '../../kit/package-root.ts';

export async function startEmbeddedReference(): Promise<RunningReferenceServer> {
  const server = await startReferenceServer({
    host: '127.0.0.1',
    httpsPort: 0,
    httpPort: 0,
    domain: 'localhost',
    fixtures: loadFixtures(DEFAULT_FIXTURES_FILE),
    certDir: embeddedCertDir(inputEnvironment()),
    // Two customers a page, as the run command's embedded reference (playwright.config.ts): the
    // fixtures' lists of three then page, and the page-cursor rule is exercised.
    customersPageSize: 2,
  });
  // The ports this worker's server chose, for binding the target in this process: a hand-over, not a setting.
  setHandOvers(
    handOverVariables({
      referenceHttpsPort: String(server.httpsPort),
      referenceHttpPort: String(server.httpPort),
    }),
  );
  return server;
}

// `node embedded-in-worker.js DIR`: makes the certificates in DIR (a team's config calls it once,
// before any worker starts, so that the CA exists when Node reads its trust).
if (isMainModule(import.meta.url)) {
  const directory = process.argv[2];
  if (!directory) throw new Error('Usage: embedded-in-worker DIR');
  await ensureCertificates(directory, 'localhost');
}
