// Spec §1 and §5 Tenant identification: the tenant is the subdomain, keys work only in their
// tenant's context, tenant identifiers are never sent, and each tenant's data is isolated.
// The rules are declared, each with its check, in specs/rules/tenant-isolation.ts.
import { registerRules } from '../conformance/run/conformance-rule.ts';
import { TENANT_ISOLATION_RULES } from './rules/tenant-isolation.ts';

// Its rules of HTTP/2's own are specs/http2.spec.ts's tests.
registerRules(TENANT_ISOLATION_RULES.filter((rule) => !rule.http2Only));
