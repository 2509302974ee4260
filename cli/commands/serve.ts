// `tenant-auth-conformance serve`: the reference server, with every option of `npm start`.
export { main } from '../../reference-server/cli/cli.ts';
