// Spec §5 Scheme: `Authorization: Bearer <API_KEY>`, no quotes, no credentials in URLs; §7 codes.
// The rules are declared, each with its check, in specs/rules/authorization-header.ts.
import { registerRules } from '../conformance/run/conformance-rule.ts';
import { AUTHORIZATION_HEADER_RULES } from './rules/authorization-header.ts';

// Its rules of HTTP/2's own are specs/http2.spec.ts's tests.
registerRules(AUTHORIZATION_HEADER_RULES.filter((rule) => !rule.http2Only));
