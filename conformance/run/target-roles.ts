// Whether the target's roles are what the target file says they are, before any rule judges the
// deployment by them. The isolation rules compare the tenant under test with "the other tenant":
// a sandbox named as that tenant (the tenant's own sandboxBaseUrl with its Development key, or
// another tenant's sandbox), or one of the tenant's own keys given as the other tenant's, makes
// them judge something else than another production tenant — a pass the deployment did not earn,
// or a failure it did not commit. A role not shown to be what it says makes every rule that needs
// it "not evaluated", with what to fix: never a pass, never a fail.
import type { Input } from '../catalog/rules.ts';
import type { ResolvedTarget, CredentialName } from '../deployment/target.ts';
import type { Knowledge } from '../judging/knowledge.ts';

/**
 * The probe key may be any valid key of the tenant (it is exposed over plain HTTP and in URLs, and
 * revoked after the run): it shares its key with another role by design.
 */
const MAY_SHARE_A_KEY: readonly CredentialName[] = ['probe'];

/** The spec's sandbox hosts: `sandbox-{tenant}.api.{domain}`. */
const SANDBOX_HOST = /^sandbox-/i;

/**
 * Each input whose role the target does not show, with why and the fix. `knowledge`, once the
 * tenants' data are learned, adds what the answers showed: the other tenant's key served its own
 * tenant's list on its own host, or it is not shown to be that tenant's key.
 */
export function roleProblems(target: ResolvedTarget, knowledge?: Knowledge): Map<Input, string> {
  const problems = new Map<Input, string>();
  const add = (inputs: readonly Input[], problem: string): void => {
    for (const input of inputs) if (!problems.has(input)) problems.set(input, problem);
  };
  const otherInputs: Input[] = ['otherTenantBaseUrl', 'credentials.otherTenant'];
  const other = hostOf(target.otherTenantBaseUrl);
  if (other !== undefined) {
    const fix =
      'Give otherTenantBaseUrl the production base URL of another tenant of the deployment, and credentials.otherTenant a production key of that tenant.';
    if (other === hostOf(target.baseUrl))
      add(
        otherInputs,
        `otherTenantBaseUrl is on the base URL's host (${other}): it is not another tenant. ${fix}`,
      );
    else if (other === hostOf(target.sandboxBaseUrl))
      add(
        otherInputs,
        `otherTenantBaseUrl is the tenant's own sandbox (${other}): it is not another production tenant. ${fix}`,
      );
    else if (SANDBOX_HOST.test(other))
      add(
        otherInputs,
        `otherTenantBaseUrl (${other}) is a sandbox host (sandbox-{tenant}): it is not another production tenant. ${fix}`,
      );
  }
  for (const [roles, problem] of sharedKeys(target))
    add(
      roles.map((role) => `credentials.${role}` as Input),
      problem,
    );
  if (
    knowledge !== undefined &&
    target.credentials.otherTenant !== undefined &&
    target.otherTenantBaseUrl !== undefined &&
    knowledge.other === undefined &&
    knowledge.otherUnanswered === undefined
  )
    add(
      ['credentials.otherTenant'],
      `the key of credentials.otherTenant was not served the customer list of ${target.otherTenantBaseUrl} (not a 200): it is not shown to be a production key of that tenant. Give credentials.otherTenant a production key of the tenant of otherTenantBaseUrl.`,
    );
  return problems;
}

/** The roles (besides MAY_SHARE_A_KEY) given one key, each group with the sentence that says so. */
function sharedKeys(target: ResolvedTarget): [CredentialName[], string][] {
  const byKey = new Map<string, CredentialName[]>();
  for (const [role, key] of Object.entries(target.credentials) as [CredentialName, string | undefined][]) {
    if (key === undefined || MAY_SHARE_A_KEY.includes(role)) continue;
    byKey.set(key, [...(byKey.get(key) ?? []), role]);
  }
  return [...byKey.values()]
    .filter((roles) => roles.length > 1)
    .map((roles) => [
      roles,
      `${roles.map((role) => `credentials.${role}`).join(' and ')} are one key (${roles.map((role) => target.credentialVariables[role] ?? role).join(', ')}): one key cannot play two roles. Give each role a key of its own.`,
    ]);
}

function hostOf(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  try {
    return new URL(url).host.toLowerCase();
  } catch {
    return undefined;
  }
}

/** The "not evaluated" reason of a rule that needs `inputs`, when some role is not shown; else undefined. */
export function roleNotShownReason(
  problems: ReadonlyMap<Input, string>,
  needs: readonly Input[],
): string | undefined {
  const reasons = [...new Set(needs.flatMap((input) => problems.get(input) ?? []))];
  return reasons.length > 0
    ? `not evaluated: the target's roles are not shown to be what the target file says: ${reasons.join(' ')}`
    : undefined;
}
