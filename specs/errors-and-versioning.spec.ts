// Spec §7 Error body and §9 Versioning, and how answers may be cached (RFC 9111).
// The rules are declared, each with its check, in specs/rules/errors-and-versioning.ts.
import { registerRules } from '../conformance/run/conformance-rule.ts';
import { ERRORS_AND_VERSIONING_RULES } from './rules/errors-and-versioning.ts';

registerRules(ERRORS_AND_VERSIONING_RULES);
