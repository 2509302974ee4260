// The kit as data, for a dashboard or a certifier: the rule catalog, a run's report (typed), and
// the check of a run's bundle. `npx tsx examples/rules-dashboard.ts reports/bundle`
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RULES, verifyBundle, type ConformanceReport } from 'tenant-auth-conformance';

for (const level of ['MUST', 'HTTP', 'ADVISORY'] as const)
  console.log(`${level}: ${RULES.filter((rule) => rule.level === level).length} rules`);

const bundle = process.argv[2];
if (bundle) {
  const verification = verifyBundle(bundle);
  const report = JSON.parse(readFileSync(join(bundle, 'conformance.json'), 'utf8')) as ConformanceReport;
  console.log(
    verification.problems.length === 0
      ? `bundle holds: ${report.verdict} for ${report.target.name}, signature ${verification.signature.state}`
      : `bundle does not hold:\n${verification.problems.join('\n')}`,
  );
}
