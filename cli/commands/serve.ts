// `tenant-auth-conformance serve`: the reference server, with every option of `npm start`, and
// `--fault` of the suite's self-test (mutation/), which the server's own command does not have.
import { main as serve } from '../../reference-server/cli/cli.ts';
import { FAULT_OPTION } from '../../mutation/fault-option.ts';

export function main(argv: string[]): Promise<number> {
  return serve(argv, FAULT_OPTION);
}
