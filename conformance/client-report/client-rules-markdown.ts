// docs/client-rules.md, rendered from the client catalog (never kept by hand).
import { CLIENT_RULES } from '../catalog/client-rules.ts';

export function renderClientRulesDoc(): string {
  const counts = (['MUST', 'ADVISORY'] as const).map(
    (level) => `${CLIENT_RULES.filter((rule) => rule.level === level).length} ${level}`,
  );
  return [
    '# Client rule catalog',
    '',
    `Generated from \`conformance/catalog/client-rules.ts\` by \`npm run docs\`; do not edit. ${CLIENT_RULES.length} rules: ${counts.join(', ')}.`,
    '',
    'What the spec asks of the clients that call the API. The reference server records every request',
    'in its client journal; `tenant-auth-conformance client-report` (in a clone: `npm run client-report`)',
    'judges each client by these rules. A client is a key (its id, or "unknown key" and a fingerprint',
    'that tells two unknown keys apart without showing either) with a User-Agent and a protocol: one',
    'library over HTTP/1.1 and over HTTP/2 is two clients. **MUST** comes from a sentence of the spec:',
    'a client that breaks one is CLIENT NOT CONFORMANT. **ADVISORY** is practice the spec recommends: it',
    'only warns. A rule no request of a client could show (no request with a body, say) is *not',
    'evaluated* for that client.',
    '',
    '| Id | Level | Source | Statement |',
    '|---|---|---|---|',
    ...CLIENT_RULES.map(
      (rule) => `| ${rule.id} | ${rule.level} | ${rule.source} | ${rule.statement.replace(/\|/g, '\\|')} |`,
    ),
    '',
  ].join('\n');
}
