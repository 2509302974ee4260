// The exit codes every subcommand keeps to, so that a CI step can tell a failed deployment from
// a broken set-up without reading the output.
export { EXIT_CODE as EXIT } from '../conformance/report/verdict.ts';

export const EXIT_CODES_HELP = `Exit codes:
  0  conformant (run, merge), or the command did what was asked
  1  not conformant: a MUST rule failed (under --profile strict an HTTP rule too), or INCOMPLETE
     with --fail-on-incomplete
  2  usage error: an unknown option, a bad argument, an invalid target file
  3  setup error: the server could not start, a target could not be reached, a rule could not run
  4  verify only: the bundle is intact, but unsigned or signed by a key you did not give (NOT TRUSTED)`;
