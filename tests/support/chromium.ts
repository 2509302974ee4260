// Debian's Chromium, trusting the reference server's CA the way a person's browser would: the CA
// is added to an NSS database in a temporary HOME (`~/.pki/nssdb`, which Chromium on Linux reads).
// Certificate checks stay on — no --ignore-certificate-errors of any kind — so a wrong SAN, an
// untrusted issuer or an SNI mix-up fails here as it would for a user. Chromium does not read
// NODE_EXTRA_CA_CERTS, hence the NSS database.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser } from '@playwright/test';
import { scratchDirectory } from './scratch.ts';

export const CHROMIUM_PATH = '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  // Chromium maps *.localhost to loopback by itself; the rule makes it explicit and keeps every
  // name of the test on this machine.
  '--host-resolver-rules=MAP *.localhost 127.0.0.1',
];

/** A temporary HOME whose NSS database trusts `caPath` for TLS servers. */
function homeTrusting(caPath: string): string {
  const home = scratchDirectory('panel-chromium-home-');
  const nssdb = join(home, '.pki', 'nssdb');
  mkdirSync(nssdb, { recursive: true });
  const certutil = (args: string[]) =>
    execFileSync('certutil', ['-d', `sql:${nssdb}`, ...args], { timeout: 10_000 });
  try {
    certutil(['-N', '--empty-password']);
    // "C,,": a trusted CA for TLS server certificates, nothing else.
    certutil(['-A', '-t', 'C,,', '-n', 'reference-server-ca', '-i', caPath]);
  } catch (error) {
    rmSync(home, { recursive: true, force: true });
    throw new Error(
      `Could not create an NSS database trusting ${caPath} (${(error as Error).message}). ` +
        'Install certutil with: apt-get install -y libnss3-tools',
      { cause: error },
    );
  }
  return home;
}

export async function launchTrustingChromium(
  caPath: string,
): Promise<{ browser: Browser; dispose(): Promise<void> }> {
  const home = homeTrusting(caPath);
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: CHROMIUM_ARGS,
    env: { ...process.env, HOME: home },
  });
  return {
    browser,
    dispose: async () => {
      await browser.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}
