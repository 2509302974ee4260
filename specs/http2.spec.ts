// RFC 9113 against spec §5: the ways HTTP/2 alone offers to split a key from its tenant — a header
// block with two authorization fields, a host field beside the :authority, one connection used for
// two tenants. Each rule speaks HTTP/2 whenever the target offers it (`overHttp2`), and is not
// applicable when it does not.
// They are declared in their groups' modules of specs/rules/ (http2Only in each declaration).
import { registerRules } from '../conformance/run/conformance-rule.ts';
import { RULE_DECLARATIONS } from '../conformance/catalog/rules.ts';

registerRules(RULE_DECLARATIONS.filter((rule) => rule.http2Only));
