// The start-up lines about key management: where each tenant's panel is, how to reach the admin
// API, where keys are kept. They name files and variables that hold the admin token, never the
// token itself.
import type { Fixtures } from '../../schemas/generated/fixtures.ts';
import type { AdminTokenSource } from '../admin-api/admin-token.ts';
import { ADMIN_TOKEN_ENV } from '../admin-api/admin-token.ts';
import { adminHostname } from '../http/hosts.ts';
import type { RunningReferenceServer } from '../server.ts';

export function keyManagementLines(
  server: RunningReferenceServer,
  fixtures: Fixtures,
  options: { host: string; dataDir: string | null; adminToken: AdminTokenSource },
): string[] {
  const lines = ['', 'Administration panels (Settings → API → API Keys; users: docs/key-management.md):'];
  for (const tenant of fixtures.tenants) {
    lines.push(
      `  ${tenant.id.padEnd(12)} ${server.panelUrl(tenant.id)}/  ${server.panelUrl(tenant.id, 'sandbox')}/`,
    );
  }
  const resolve =
    server.domain === 'localhost'
      ? ''
      : ` --resolve "${adminHostname(server.domain)}:${server.httpsPort}:${options.host}"`;
  const token =
    options.adminToken.kind === 'env'
      ? `$${ADMIN_TOKEN_ENV}`
      : options.adminToken.kind === 'file'
        ? `$(cat '${options.adminToken.path}')`
        : undefined;
  lines.push('', `Admin API: ${server.adminBaseUrl}`);
  if (token === undefined) {
    lines.push(`  off: set ${ADMIN_TOKEN_ENV} or use a data directory (--data-dir) to turn it on`);
  } else {
    lines.push(
      `  curl --cacert ${server.caPath}${resolve} -H "Authorization: Bearer ${token}" ${server.adminBaseUrl}/tenants/acme/keys`,
    );
  }
  lines.push(
    options.dataDir === null
      ? '  keys made in the panel or the admin API are kept in memory only (--data-dir off)'
      : `  keys made in the panel or the admin API are kept in ${options.dataDir}`,
  );
  return lines;
}
