// `npm run client-report -- [options]` (see conformance/client-report/client-report.ts; --help).
import { clientReport } from '../conformance/client-report/client-report.ts';

process.exitCode = await clientReport(process.argv.slice(2));
