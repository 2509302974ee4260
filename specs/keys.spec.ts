// Spec §5 and §7: valid keys are served; unknown, altered and revoked keys get invalid_api_key.
// The rules are declared, each with its check, in specs/rules/keys.ts.
import { registerRules } from '../conformance/run/conformance-rule.ts';
import { KEYS_RULES } from './rules/keys.ts';

registerRules(KEYS_RULES);
