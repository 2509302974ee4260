// Which inputs a target provides, and the exact line that would provide a missing one.
import type { Input } from '../catalog/rules.ts';
import type { ResolvedTarget } from './target.ts';
import { CREDENTIAL_VARIABLES as VARIABLE, isUrlTargetFile } from './url-target.ts';

const HINTS: Record<Input, string> = {
  otherTenantBaseUrl: '"otherTenantBaseUrl": "https://{other-tenant}.api.{domain}/v1"',
  sandboxBaseUrl: '"sandboxBaseUrl": "https://{sandbox host of your tenant}/v1"',
  'credentials.fullAccess': `"credentials": { "fullAccess": "${VARIABLE.fullAccess}" }   (and export ${VARIABLE.fullAccess}=<a production Full Access key>)`,
  'credentials.readOnly': `"credentials": { "readOnly": "${VARIABLE.readOnly}" }   (and export ${VARIABLE.readOnly}=<a production Read Only key>)`,
  'credentials.noCustomersPermission': `"credentials": { "noCustomersPermission": "${VARIABLE.noCustomersPermission}" }   (and export ${VARIABLE.noCustomersPermission}=<a valid key without the customers permission>)`,
  'credentials.revoked': `"credentials": { "revoked": "${VARIABLE.revoked}" }   (and export ${VARIABLE.revoked}=<a key you revoked>)`,
  'credentials.sandbox': `"credentials": { "sandbox": "${VARIABLE.sandbox}" }   (and export ${VARIABLE.sandbox}=<a Development key>)`,
  'credentials.otherTenant': `"credentials": { "otherTenant": "${VARIABLE.otherTenant}" }   (and export ${VARIABLE.otherTenant}=<a production key of the other tenant>)`,
  'credentials.probe': `"credentials": { "probe": "${VARIABLE.probe}" }   (and export ${VARIABLE.probe}=<a valid key you accept to expose over plain HTTP and in URLs; revoke it after the run>)`,
};

export function hasInput(target: ResolvedTarget, input: Input): boolean {
  if (input.startsWith('credentials.')) {
    const name = input.slice('credentials.'.length) as keyof ResolvedTarget['credentials'];
    return target.credentials[name] !== undefined;
  }
  return target[input as 'otherTenantBaseUrl' | 'sandboxBaseUrl'] !== undefined;
}

export function missingInputs(target: ResolvedTarget, needs: readonly Input[]): Input[] {
  return needs.filter((input) => !hasInput(target, input));
}

/** What to give, for a target by URL: the option of `run` and of conformanceProjects, or the variable. */
const URL_HINTS: Record<Input, string> = {
  otherTenantBaseUrl:
    "no other tenant's base URL was given: add --other-tenant-base-url URL (run) or otherTenantBaseUrl (conformanceProjects' target)",
  sandboxBaseUrl:
    "no sandbox base URL was given: add --sandbox-base-url URL (run) or sandboxBaseUrl (conformanceProjects' target)",
  'credentials.fullAccess': `${VARIABLE.fullAccess} is not set: export it with a production Full Access key`,
  'credentials.readOnly': `${VARIABLE.readOnly} is not set: export it with a production Read Only key`,
  'credentials.noCustomersPermission': `${VARIABLE.noCustomersPermission} is not set: export it with a valid key without the customers permission`,
  'credentials.revoked': `${VARIABLE.revoked} is not set: export it with a key you revoked`,
  'credentials.sandbox': `${VARIABLE.sandbox} is not set: export it with a Development key`,
  'credentials.otherTenant': `${VARIABLE.otherTenant} is not set: export it with a production key of the other tenant`,
  'credentials.probe': `${VARIABLE.probe} is not set: export it with a valid key you accept to expose over plain HTTP and in URLs (revoke it after the run)`,
};

/**
 * "not evaluated" reason: what is missing and how to give it, in the terms of what the user
 * configured: the line to add to their target file, or for a target by URL (`targetFile` is then
 * the kit's own) the option or variable.
 */
export function notEvaluatedReason(missing: readonly Input[], targetFile?: string): string {
  if (targetFile !== undefined && isUrlTargetFile(targetFile))
    return `not evaluated for a target by URL: ${missing.map((input) => URL_HINTS[input]).join(' ; ')}.`;
  return `not evaluated: the target file lacks ${missing.join(', ')}. Add to it: ${missing.map((input) => HINTS[input]).join(' ; ')}`;
}
