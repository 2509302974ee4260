// Spec §5 Environments and Key types: production and sandbox keys work only in their environment.
// The rules are declared, each with its check, in specs/rules/environments.ts.
import { registerRules } from '../conformance/run/conformance-rule.ts';
import { ENVIRONMENTS_RULES } from './rules/environments.ts';

registerRules(ENVIRONMENTS_RULES);
