// Keys made for one run through the reference's admin API (docs/key-management.md), so that QA
// needs no hand-made keys: every credential the target file does not give is created before the
// run (the set-up project, conformance/run/project-setup.ts) and revoked after it (its teardown project). The keys travel to the workers in
// environment variables and are redacted like any configured key.
import type { CreatedKey, NewKeyRequest } from '../../schemas/generated/api-key-management.ts';
import type { TargetFile } from '../../schemas/generated/target.ts';
import { RawClient } from '../requests/raw-client.ts';
import { MINTED_KEY_PREFIX } from '../env.ts';

/** The credentials a target file names (`fullAccess`, `readOnly`, …). */
export type CredentialName = keyof NonNullable<TargetFile['credentials']>;

/** Where a minted key is handed to the workers: `CONFORMANCE_MINTED_FULL_ACCESS`, … */
export function mintedVariable(name: CredentialName): string {
  return `${MINTED_KEY_PREFIX}${name.replace(/[A-Z]/g, (letter) => `_${letter}`).toUpperCase()}`;
}

interface PlannedKey {
  credential: CredentialName;
  tenant: string;
  request: Omit<NewKeyRequest, 'name'>;
  /** A key made only to be revoked, for the revoked-key rule. */
  revokeAtOnce?: boolean;
}

export interface MintedKeys {
  /** Environment variables to set, by mintedVariable(). */
  env: Record<string, string>;
  /** The keys this run made, by tenant and id. */
  made: readonly MadeKey[];
  /** Revokes every key this run made. */
  revokeAll(): Promise<void>;
}

export class KeyMintingError extends Error {
  constructor(message: string) {
    super(`Key minting failed: ${message}`);
    this.name = 'KeyMintingError';
  }
}

function firstLabel(baseUrl: string | undefined): string | undefined {
  return baseUrl === undefined ? undefined : new URL(baseUrl).hostname.split('.')[0];
}

/**
 * What minting reads of a target: its URLs, its minting section, and the variables of the
 * credentials it gives already (those are not minted).
 */
export type MintingTarget = Pick<TargetFile, 'baseUrl' | 'otherTenantBaseUrl' | 'keyMinting' | 'hosts'> & {
  credentialVariables: Partial<Record<CredentialName, string>>;
};

export function plannedKeys(target: MintingTarget): PlannedKey[] {
  const minting = target.keyMinting;
  if (!minting) return [];
  const tenant = minting.tenant ?? firstLabel(target.baseUrl) ?? '';
  const otherTenant = minting.otherTenant ?? firstLabel(target.otherTenantBaseUrl);
  const full = { environment: 'production', access: 'full_access' } as const;
  const plan: PlannedKey[] = [
    { credential: 'fullAccess', tenant, request: full },
    { credential: 'readOnly', tenant, request: { environment: 'production', access: 'read_only' } },
    {
      credential: 'noCustomersPermission',
      tenant,
      request: { environment: 'production', access: 'custom', permissions: ['invoices:read'] },
    },
    { credential: 'revoked', tenant, request: full, revokeAtOnce: true },
    { credential: 'sandbox', tenant, request: { environment: 'sandbox', access: 'full_access' } },
    ...(otherTenant ? [{ credential: 'otherTenant' as const, tenant: otherTenant, request: full }] : []),
    ...(minting.probe === true ? [{ credential: 'probe' as const, tenant, request: full }] : []),
  ];
  // A credential the file gives is used as it is, but for the revoked key: one the kit did not see
  // served and then revoke may never have been a key, and passes the revoked-key rule as an unknown
  // key does. With minting at hand the kit's own is used, whatever the file names.
  return plan.filter(
    (key) => key.revokeAtOnce === true || target.credentialVariables[key.credential] === undefined,
  );
}

export async function mintKeys(
  target: MintingTarget,
  adminToken: string,
  caFile: string | undefined,
): Promise<MintedKeys> {
  const minting = target.keyMinting;
  if (!minting) return { env: {}, made: [], revokeAll: () => Promise.resolve() };
  const { admin, revoke } = adminOf(target, adminToken, caFile);
  const made: MadeKey[] = [];
  const revokeAll = async (): Promise<void> => {
    await Promise.all(made.map(revoke));
  };
  const env: Record<string, string> = {};
  const runLabel = new Date().toISOString();
  try {
    for (const planned of plannedKeys(target)) {
      const created = (await admin('POST', `/tenants/${encodeURIComponent(planned.tenant)}/keys`, {
        name: `conformance run ${runLabel} ${planned.credential}`,
        ...planned.request,
      })) as CreatedKey;
      const key = { tenant: planned.tenant, id: created.key.id };
      made.push(key);
      if (planned.revokeAtOnce) {
        await servedBeforeRevocation(target, created.secret, caFile);
        await revoke(key);
      }
      env[mintedVariable(planned.credential)] = created.secret;
    }
  } catch (error) {
    // Nothing made for a run that cannot start may stay valid.
    await revokeAll().catch(() => undefined);
    throw error;
  }
  return { env, made, revokeAll };
}

/** Revokes keys a run made, from another process than the one that made them (a teardown project). */
export async function revokeKeys(
  target: MintingTarget,
  adminToken: string,
  caFile: string | undefined,
  keys: readonly MadeKey[],
): Promise<void> {
  if (!target.keyMinting) return;
  const { revoke } = adminOf(target, adminToken, caFile);
  await Promise.all(keys.map(revoke));
}

/**
 * The key minted to be revoked is first shown to be a key: the tenant's list is served with it.
 * Only then does the revoked-key rule's refusal say anything of revoked keys.
 */
async function servedBeforeRevocation(target: MintingTarget, secret: string, caFile: string | undefined) {
  const url = `${target.baseUrl.replace(/\/+$/, '')}/customers`;
  const exchange = await new RawClient({ hosts: target.hosts ?? {}, caFile }).send({
    url,
    method: 'GET',
    headers: [
      ['Authorization', `Bearer ${secret}`],
      ['Accept', 'application/json'],
    ],
  });
  const answer = exchange.kind === 'failure' ? `no response (${exchange.error})` : `${exchange.status}`;
  if (exchange.kind === 'failure' || exchange.status !== 200)
    throw new KeyMintingError(
      `the key minted to be revoked was not served before its revocation: GET ${url} answered ${answer}, so its refusal once revoked would say nothing of revoked keys. Check keyMinting.tenant names the base URL's tenant.`,
    );
}

/** A key minting made: its tenant and id (never its value). */
export interface MadeKey {
  tenant: string;
  id: string;
}

function adminOf(target: MintingTarget, adminToken: string, caFile: string | undefined) {
  const minting = target.keyMinting;
  if (!minting) throw new Error('Defect: key minting without a keyMinting section.');
  const client = new RawClient({ hosts: target.hosts ?? {}, caFile });
  const admin = async (method: string, path: string, body?: object): Promise<unknown> => {
    const url = `${minting.adminBaseUrl}${path}`;
    const exchange = await client.send({
      url,
      method,
      headers: [
        ['Authorization', `Bearer ${adminToken}`],
        ['Accept', 'application/json'],
        ...(body ? [['Content-Type', 'application/json'] as const] : []),
      ],
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    if (exchange.kind === 'failure')
      throw new KeyMintingError(`${method} ${url}: no response (${exchange.error}).`);
    if (exchange.status >= 300) {
      const code = /"code"\s*:\s*"([a-z_]+)"/.exec(exchange.bodyText)?.[1] ?? 'no error code';
      throw new KeyMintingError(
        `${method} ${url} answered ${exchange.status} ${code}. Check keyMinting in the target file and the admin token's variable.`,
      );
    }
    return JSON.parse(exchange.bodyText) as unknown;
  };

  const revoke = (key: MadeKey): Promise<unknown> =>
    admin('POST', `/tenants/${encodeURIComponent(key.tenant)}/keys/${encodeURIComponent(key.id)}/revoke`);
  return { admin, revoke };
}
