// The kit as data, for a dashboard or a certifier: the rule catalog, a run's report (typed), and
// the check of a run's bundle against the signer's public key you trust.
// `npx tsx examples/rules-dashboard.ts reports/bundle vendor.pub`
import { createPublicKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RULES, verifyBundle, type ConformanceReport } from 'tenant-auth-conformance';

for (const level of ['MUST', 'HTTP', 'ADVISORY'] as const)
  console.log(`${level}: ${RULES.filter((rule) => rule.level === level).length} rules`);

const [bundle, publicKeyFile] = process.argv.slice(2);
if (bundle) {
  const trustedKeys = publicKeyFile ? [createPublicKey(readFileSync(publicKeyFile))] : [];
  const verification = await verifyBundle(bundle, { trustedKeys });
  const report = JSON.parse(readFileSync(join(bundle, 'conformance.json'), 'utf8')) as ConformanceReport;
  console.log(
    verification.problems.length === 0
      ? `bundle holds: ${report.verdict} for ${report.target.name}, signature ${verification.signature.state}`
      : `bundle does not hold:\n${verification.problems.join('\n')}`,
  );
}
