// Every option of a run, one row each: its flag, its environment variable, how its text is
// checked (the bounds and the words of a refusal), its default, its line in `run --help` and in
// the docs' options table, and its option in a team's config (conformanceProjects). Everything
// else is made from these rows: the flags `run` accepts (run/run-options.ts), the reading of the
// variables and the `RunSettings` type (settings.ts), the help (run/run-help.ts), the options
// table of docs/running-the-suite.md (scripts/generate-docs.ts), the team's options
// (library/projects.ts) and the lint rule's lists (eslint.config.js). Adding an option is adding
// a row here, then using its value where it matters.
// Kept free of imports beyond the checks: eslint.config.js loads this file too.
import { resolve } from 'node:path';
import {
  checkNumber,
  checkProfile,
  checkProtocols,
  checkSwitch,
  checkUserAgent,
  type NumberBounds,
  type Profile,
  type Protocol,
} from './setting-checks.ts';

/** How a row's option appears in a team's config, or why it does not. */
export type TeamOption =
  /** An option of conformanceProjects(), read and checked by the row (library/projects.ts). */
  | { option: string; checked: 'by the row' }
  /** An option of conformanceProjects() or conformanceReporter() with a shape of its own, read there. */
  | { option: string; checked: 'by its own code' }
  /** Not an option of a team's config: why. */
  | { none: string };

export interface RunOption<Key extends string = string, Value = unknown> {
  /** The field of RunSettings. */
  key: Key;
  /** `run`'s flag, without `--`; undefined for what the runner alone sets. */
  flag: string | undefined;
  /** The flag's argument in --help (`SECONDS`); none for a switch. */
  argument?: string;
  /** A switch's flag that turns it off (`no-bundle`). */
  offFlag?: string;
  variable: string;
  kind: 'number' | 'switch' | 'path' | 'profile' | 'protocols' | 'text';
  /** The value unset, as a user would write it (`10`, `reports`); none: undefined. */
  defaultText?: string;
  /**
   * The text (of a flag, a variable, a team's option) as the value; a UsageError naming `named`.
   * Its type is the setting's: with `| undefined` when the option has no default.
   */
  parse: (text: string, named: string, where: string) => Value;
  /** A number's bounds, for a team's option given as a number. */
  bounds?: NumberBounds;
  /** The line of --help, after the flag; `{default}` is the default. */
  help: string;
  /** The line of `--no-…` in --help. */
  offHelp?: string;
  /** Which heading of --help it is under. */
  section: 'run' | 'certificate';
  /** The cell of the docs' options table. */
  doc: string;
  team: TeamOption;
  /** A hand-over of the run's own processes, never given by a user (no flag, no help, no doc). */
  internal?: true;
}

/** A row whose value is `Value`, with its key kept as a literal type (for RunSettings). */
function option<const Key extends string, Value>(row: RunOption<Key, Value>): RunOption<Key, Value> {
  return row;
}

function numberOption<const Key extends string, Value extends number | undefined = number>(
  row: Omit<RunOption<Key, Value>, 'parse' | 'kind' | 'bounds'> & {
    bounds: NumberBounds;
    /** What one unit of the text is in the value: 1000 for seconds kept as milliseconds. */
    scale?: number;
  },
): RunOption<Key, Value> {
  const { scale = 1, ...rest } = row;
  return {
    ...rest,
    kind: 'number',
    parse: (text, named, where) => (checkNumber(row.bounds, text, named, where) * scale) as Value,
  };
}

const path = (text: string): string => resolve(text);

export const MAX_LIST_PAGES_LIMIT = 1000;
export const MAX_LIST_RECORDS_LIMIT = 100_000;

export const RUN_OPTIONS = [
  option<'targetFile', string | undefined>({
    key: 'targetFile',
    flag: 'target',
    argument: 'FILE',
    variable: 'CONFORMANCE_TARGET',
    kind: 'path',
    parse: path,
    help: 'a target file describing the deployment (see schemas/target.schema.json)',
    section: 'run',
    doc: 'the target file describing the deployment; none: the embedded reference server',
    team: { option: 'target', checked: 'by its own code' },
  }),
  option<'profile', Profile | undefined>({
    key: 'profile',
    flag: 'profile',
    argument: 'NAME',
    variable: 'CONFORMANCE_PROFILE',
    kind: 'profile',
    parse: checkProfile,
    help: 'default (HTTP-level rules warn) or strict (they fail)',
    section: 'run',
    doc: "`default` (HTTP-level rules warn) or `strict` (they fail); none: the target file's, else `default`",
    team: { option: 'profile', checked: 'by its own code' },
  }),
  option<'failOnIncomplete', boolean>({
    key: 'failOnIncomplete',
    flag: 'fail-on-incomplete',
    variable: 'CONFORMANCE_FAIL_ON_INCOMPLETE',
    kind: 'switch',
    defaultText: '0',
    parse: checkSwitch,
    help: 'exit 1 also when the verdict is INCOMPLETE: a MUST rule not evaluated for lack of an input, or under strict a partial run',
    section: 'run',
    doc: 'exit 1 also when the verdict is INCOMPLETE',
    team: { option: 'failOnIncomplete', checked: 'by its own code' },
  }),
  option<'reportDirectory', string>({
    key: 'reportDirectory',
    flag: 'reports',
    argument: 'DIR',
    variable: 'CONFORMANCE_REPORT_DIR',
    kind: 'path',
    defaultText: 'reports',
    parse: path,
    help: 'where reports are written (default {default}/)',
    section: 'run',
    doc: 'where reports are written',
    team: { option: 'outputDir', checked: 'by its own code' },
  }),
  numberOption({
    key: 'requestTimeoutMs',
    flag: 'request-timeout',
    argument: 'SECONDS',
    variable: 'CONFORMANCE_REQUEST_TIMEOUT',
    bounds: { min: 0, max: 600, unit: 'seconds', aboveMin: true },
    scale: 1000,
    defaultText: '10',
    help: 'the longest one exchange may take, TLS handshake included (default {default})',
    section: 'run',
    doc: 'seconds one exchange may take, TLS handshake included; more than 0, at most 600',
    team: { option: 'requestTimeoutSeconds', checked: 'by the row' },
  }),
  option<'preflightOnly', boolean>({
    key: 'preflightOnly',
    flag: 'preflight-only',
    variable: 'CONFORMANCE_PREFLIGHT_ONLY',
    kind: 'switch',
    defaultText: '0',
    parse: checkSwitch,
    help: 'run only the preflight and exit (0: the target can be reached; 3: not); no report is written',
    section: 'run',
    doc: 'run only the preflight: exit 0 when the target can be reached, 3 when not; no report',
    team: {
      none: 'a team runs the set-up project alone with `npx playwright test --project "conformance set-up"`',
    },
  }),
  numberOption({
    key: 'maxRetries',
    flag: 'max-retries',
    argument: 'N',
    variable: 'CONFORMANCE_MAX_RETRIES',
    bounds: { min: 0, max: 20, unit: 'retries', integer: true },
    defaultText: '4',
    help: 'how often one request is sent again after a transient answer (429, 502, 503, 504: never judged) before its rule ends as ERROR (default {default})',
    section: 'run',
    doc: 'how often one request is sent again after a transient answer (429, 502, 503, 504); 0 to 20',
    team: { option: 'maxRetries', checked: 'by the row' },
  }),
  numberOption({
    key: 'retryBudgetMs',
    flag: 'retry-budget',
    argument: 'SECONDS',
    variable: 'CONFORMANCE_RETRY_BUDGET',
    bounds: { min: 0, max: 3600, unit: 'seconds' },
    scale: 1000,
    defaultText: '60',
    help: 'the most the whole run waits before retries (default {default})',
    section: 'run',
    doc: 'seconds the whole run waits before retries, at most; 0 to 3600',
    team: { option: 'retryBudgetSeconds', checked: 'by the row' },
  }),
  option<'protocols', readonly Protocol[] | undefined>({
    key: 'protocols',
    flag: 'protocols',
    argument: 'LIST',
    variable: 'CONFORMANCE_PROTOCOLS',
    kind: 'protocols',
    parse: checkProtocols,
    help: 'h1, h2 or h1,h2: the protocols every rule is checked over (default: each one the target offers by ALPN — a port that offers h2 alone runs HTTP/2 alone, and the reports say HTTP/1.1 is not offered; the embedded reference server: h1,h2)',
    section: 'run',
    doc: '`h1`, `h2` or `h1,h2`; none: each one the target offers by ALPN (the embedded reference: both)',
    team: { option: 'protocols', checked: 'by its own code' },
  }),
  numberOption<'maxRps', number | undefined>({
    key: 'maxRps',
    flag: 'max-rps',
    argument: 'N',
    variable: 'CONFORMANCE_MAX_RPS',
    bounds: { min: 0.1, max: 10_000, unit: 'requests per second' },
    help: 'never more than N requests per second, from the start (default: as fast as the target allows; after a 429 the run slows to the rate it allows)',
    section: 'run',
    doc: 'requests per second the run never exceeds; 0.1 to 10000; none: as fast as the target allows',
    team: { option: 'maxRps', checked: 'by the row' },
  }),
  option<'userAgent', string | undefined>({
    key: 'userAgent',
    flag: 'user-agent',
    argument: 'TEXT',
    variable: 'CONFORMANCE_USER_AGENT',
    kind: 'text',
    parse: checkUserAgent,
    help: 'the User-Agent of every request (default: those of common clients, picked per request by its rule and index — curl, a browser, python-requests, Go — never one that names the suite)',
    section: 'run',
    doc: "the User-Agent of every request, 1 to 512 visible ASCII characters and spaces; none: common clients', picked per request by its rule and index (curl, a browser, python-requests, Go)",
    team: { option: 'userAgent', checked: 'by the row' },
  }),
  numberOption({
    key: 'maxListPages',
    flag: 'max-list-pages',
    argument: 'N',
    variable: 'CONFORMANCE_MAX_LIST_PAGES',
    bounds: { min: 1, max: MAX_LIST_PAGES_LIMIT, unit: 'pages', integer: true },
    defaultText: '10',
    help: `pages of one tenant's customer list the run follows (Link rel="next", a next link or a cursor with has_more) to learn its data, at most (default {default}, 1 to ${MAX_LIST_PAGES_LIMIT})`,
    section: 'run',
    doc: `pages of one tenant's list the run follows, at most; 1 to ${MAX_LIST_PAGES_LIMIT}`,
    team: { option: 'maxListPages', checked: 'by the row' },
  }),
  numberOption({
    key: 'maxListRecords',
    flag: 'max-list-records',
    argument: 'N',
    variable: 'CONFORMANCE_MAX_LIST_RECORDS',
    bounds: { min: 1, max: MAX_LIST_RECORDS_LIMIT, unit: 'records', integer: true },
    defaultText: '1000',
    help: `records of one tenant's list after which no further page is asked for (default {default}, 1 to ${MAX_LIST_RECORDS_LIMIT})`,
    section: 'run',
    doc: `records of one tenant's list after which no further page is asked for; 1 to ${MAX_LIST_RECORDS_LIMIT}`,
    team: { option: 'maxListRecords', checked: 'by the row' },
  }),
  option<'bundle', boolean | undefined>({
    key: 'bundle',
    flag: 'bundle',
    offFlag: 'no-bundle',
    variable: 'CONFORMANCE_BUNDLE',
    kind: 'switch',
    parse: checkSwitch,
    help: 'also write DIR/bundle/: the reports, SHA256SUMS, an in-toto statement of the verdict and badge.svg (default under --profile strict)',
    offHelp: 'no bundle, even under --profile strict',
    section: 'certificate',
    doc: '`1`: write `bundle/` (`--bundle`); `0`: do not, even under strict (`--no-bundle`); none: by the profile',
    team: { none: 'a team sets CONFORMANCE_BUNDLE in the environment its config runs in' },
  }),
  option<'signKeyFile', string | undefined>({
    key: 'signKeyFile',
    flag: 'sign-key',
    argument: 'FILE',
    variable: 'CONFORMANCE_SIGN_KEY',
    kind: 'path',
    parse: path,
    help: "sign the bundle's statement (DSSE) with this Ed25519 private key (PEM, from `keygen`); implies --bundle",
    section: 'certificate',
    doc: "the Ed25519 private key file (PEM) that signs the bundle's statement; implies `--bundle`",
    team: {
      none: 'a team sets CONFORMANCE_SIGN_KEY in the environment its config runs in: a path, never the key',
    },
  }),
  option<'protocolsNotOffered', readonly Protocol[]>({
    key: 'protocolsNotOffered',
    flag: undefined,
    variable: 'CONFORMANCE_PROTOCOLS_NOT_OFFERED',
    kind: 'protocols',
    defaultText: '',
    parse: (text, named, where) => (text === '' ? [] : checkProtocols(text, named, where)),
    help: '',
    section: 'run',
    doc: '',
    team: { none: "the runner's finding (the target's ALPN), for the reports" },
    internal: true,
  }),
] as const;

export type RunOptionRow = (typeof RUN_OPTIONS)[number];

/** Everything a run is told, as every process of the run receives it: one field per row. */
export type RunSettings = {
  readonly [Row in RunOptionRow as Row['key']]: ReturnType<Row['parse']>;
};

/** The row of a setting. */
export function optionOf(key: keyof RunSettings): RunOptionRow {
  const row = RUN_OPTIONS.find((candidate) => candidate.key === key);
  if (!row) throw new Error(`No run option ${key}.`);
  return row;
}

/** Every variable a setting is read from, in the table's order (the lint rule's list too). */
export const SETTING_VARIABLES: readonly string[] = RUN_OPTIONS.map((row) => row.variable);
