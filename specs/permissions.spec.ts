// Spec §5 Authentication versus authorization: a valid key is not enough; the operation must be
// allowed for that key.
// The rules are declared, each with its check, in specs/rules/permissions.ts.
import { registerRules } from '../conformance/run/conformance-rule.ts';
import { PERMISSIONS_RULES } from './rules/permissions.ts';

registerRules(PERMISSIONS_RULES);
