// Spec §5 Scheme 4: HTTPS only; plain HTTP requests are rejected.
// The rules are declared, each with its check, in specs/rules/transport.ts.
import { registerRules } from '../conformance/run/conformance-rule.ts';
import { TRANSPORT_RULES } from './rules/transport.ts';

registerRules(TRANSPORT_RULES);
