// `tenant-auth-conformance client-report`: judges the clients in the reference server's journal.
export { clientReport as main } from '../../conformance/client-report/client-report.ts';
