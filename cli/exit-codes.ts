// The exit codes every subcommand keeps to, so that a CI step can tell a failed deployment from
// a broken set-up without reading the output.
export const EXIT = {
  /** The deployment conforms (or the command did what was asked). */
  ok: 0,
  /** NOT CONFORMANT, or INCOMPLETE with --fail-on-incomplete. */
  notConformant: 1,
  /** A bad option, argument or target file: nothing was checked. */
  usage: 2,
  /** The set-up failed (a port taken, a server that did not start) or a rule could not run. */
  setup: 3,
} as const;

export const EXIT_CODES_HELP = `Exit codes:
  0  conformant (run, merge), or the command did what was asked
  1  not conformant: a MUST rule failed (under --profile strict an HTTP rule too), or INCOMPLETE
     with --fail-on-incomplete
  2  usage error: an unknown option, a bad argument, an invalid target file
  3  setup error: the server could not start, a target could not be reached, a rule could not run`;
