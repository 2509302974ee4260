// Building blocks of fuzz requests shared by the properties: junk text and bytes, tenant hosts,
// and the headers that try to name another tenant (which must never change the scope).
import fc from 'fast-check';
import type { Environment } from '../../reference-server/http/hosts.ts';
import { hostOf, type FixtureKnowledge, type Text } from './fuzz-model.ts';

export interface TenantScope {
  tenant: string;
  environment: Environment;
}

/** A tenant that the fixtures do not have: its host is well-formed, its keys are none. */
export const UNKNOWN_TENANT = 'nosuch';

export const environments = fc.constantFrom<Environment>('production', 'sandbox');

export function tenantScopes(knowledge: FixtureKnowledge): fc.Arbitrary<TenantScope> {
  return fc.record({
    tenant: fc.constantFrom(...knowledge.tenantIds, UNKNOWN_TENANT),
    environment: environments,
  });
}

/**
 * Text a client should never send: control characters and every code point (including DEL,
 * bytes above 0x7F, and CR/LF that split a header), printable ASCII, or raw bytes that are not
 * UTF-8.
 */
export function junk(maxLength: number): fc.Arbitrary<Text> {
  return fc.oneof(
    fc.string({ unit: 'binary-ascii', maxLength }).map((text) => [text]),
    fc.string({ unit: 'binary', maxLength }).map((text) => [text]),
    fc.string({ unit: 'grapheme-ascii', maxLength }).map((text) => [text]),
    fc.uint8Array({ maxLength }).map((bytes) => [{ bytes: [...bytes] }]),
  );
}

/** A long run of one short string, up to past the default 16 KiB header limit. */
export const huge: fc.Arbitrary<Text> = fc
  .record({
    repeat: fc.constantFrom('A', 'x', '=', ' ', 'mbk', '%20', 'é'),
    times: fc.integer({ min: 1_000, max: 20_000 }),
  })
  .map((run) => [run]);

/**
 * Headers that name another tenant: `X-Forwarded-Host`, `Forwarded`, `X-Tenant-Id` and the
 * `tenant_id`/`company_id`/`organization_id` fields of spec §5. None of them may change the scope.
 */
export function tenantConfusionHeaders(
  knowledge: FixtureKnowledge,
): fc.Arbitrary<ReadonlyArray<readonly [Text, Text]>> {
  return fc
    .tuple(
      tenantScopes(knowledge),
      fc.subarray([
        'X-Forwarded-Host',
        'Forwarded',
        'X-Tenant-Id',
        'tenant_id',
        'company_id',
        'organization_id',
      ]),
    )
    .map(([other, names]) =>
      names.map((name): readonly [Text, Text] => {
        const host = hostOf(other.tenant, other.environment);
        if (name === 'X-Forwarded-Host') return [[name], [host]];
        if (name === 'Forwarded') return [[name], [`for=127.0.0.1;host=${host};proto=https`]];
        return [[name], [other.tenant]];
      }),
    );
}
