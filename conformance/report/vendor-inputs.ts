// Every input the vendor who runs the kit controls, and what the kit does with it: one row each.
// Two things are made from these rows, so that they cannot drift apart: the table "Every input a
// vendor controls" of docs/certification.md (`npm run docs`), and the lines of the vendor's word
// that every report's scope, and so the signed statement, carries (`vendorsWordOf`). A row that
// rests on the vendor's word appears in both without a second edit.
import type { ConformanceReport } from '../../schemas/generated/conformance-report.ts';

export interface VendorInput {
  /** The first column: the input's names, backticked where they are literal. */
  input: string;
  kind: string;
  /** What the kit does with it: checked, in scope, or neither. */
  treatedAs?: string;
  /** What a certifier takes on the vendor's word, as it follows "the vendor's word": the statement carries it. */
  vendorsWord?: string;
  /** The credential this row is about: when the kit minted that key itself (`keyMinting`), its word is the kit's. */
  mintedBy?: 'revoked';
}

const RUN = 'run option';
const PLAYWRIGHT = 'Playwright option';
const FILE = 'target file';

export const VENDOR_INPUTS: readonly VendorInput[] = [
  { input: '`--target`', kind: RUN, treatedAs: "checked: the target file's schema, its variables set" },
  {
    input: '`--profile`',
    kind: RUN,
    treatedAs: "in scope: the report's profile, and under strict a partial run is INCOMPLETE",
  },
  {
    input: '`--fail-on-incomplete`',
    kind: RUN,
    treatedAs: "in scope: the report's options (the exit code only)",
  },
  { input: '`--reports`', kind: RUN, treatedAs: 'neither: where the reports are written changes no verdict' },
  { input: '`--request-timeout`', kind: RUN, treatedAs: 'in scope: `scope.settings.requestTimeoutSeconds`' },
  { input: '`--preflight-only`', kind: RUN, treatedAs: 'checked: writes no report, so certifies nothing' },
  { input: '`--max-retries`', kind: RUN, treatedAs: 'in scope: `scope.settings.maxRetries`' },
  { input: '`--retry-budget`', kind: RUN, treatedAs: 'in scope: `scope.settings.retryBudgetSeconds`' },
  {
    input: '`--protocols`',
    kind: RUN,
    treatedAs: 'in scope: a protocol the target offers and the run left out makes it partial',
  },
  {
    input: '`--user-agent`',
    kind: RUN,
    treatedAs: "shown in the evidence: every request's User-Agent is in the HAR as sent",
    vendorsWord:
      "that the run did not set one agent for every request: the scope does not yet name a fixed one, and one agent (the suite's own name, say) lets a cloaking front tell the suite from its clients",
  },
  { input: '`--max-rps`', kind: RUN, treatedAs: 'in scope: `scope.settings.maxRequestsPerSecond`' },
  {
    input: '`--max-list-pages`',
    kind: RUN,
    treatedAs: 'in scope: `scope.settings.maxListPages`; a list cut makes the run partial',
  },
  {
    input: '`--max-list-records`',
    kind: RUN,
    treatedAs: 'in scope: `scope.settings.maxListRecords`; a list cut makes the run partial',
  },
  { input: '`--bundle`', kind: RUN, treatedAs: 'neither: whether a bundle is written' },
  {
    input: '`--sign-key`',
    kind: RUN,
    treatedAs: 'checked: the signer `verify` names; trusted only for a key the certifier gives',
  },
  {
    input: '`CONFORMANCE_PROTOCOLS_NOT_OFFERED`',
    kind: 'hand-over',
    treatedAs: "checked: the runner's own finding, removed from a user's environment",
  },
  {
    input: '`--grep`',
    kind: PLAYWRIGHT,
    treatedAs: 'in scope: the rules selected; fewer than the catalog is partial',
  },
  { input: '`--grep-invert`', kind: PLAYWRIGHT, treatedAs: 'in scope: as `--grep`' },
  { input: '`--shard`', kind: PLAYWRIGHT, treatedAs: 'in scope: a merge lacking a shard is partial' },
  { input: '`--workers`', kind: PLAYWRIGHT, treatedAs: 'neither: changes no verdict' },
  { input: '`--list`', kind: PLAYWRIGHT, treatedAs: 'checked: runs nothing, writes no report' },
  {
    input: '`--retries`',
    kind: PLAYWRIGHT,
    treatedAs: 'in scope: `scope.settings.retries`, shown beside the verdict',
  },
  { input: '`--repeat-each`', kind: PLAYWRIGHT, treatedAs: 'in scope: `scope.settings.repeatEach`' },
  {
    input: '`--max-failures`',
    kind: PLAYWRIGHT,
    treatedAs: 'in scope: `scope.settings.maxFailures`; rules never started are not evaluated',
  },
  {
    input: '`--timeout`',
    kind: PLAYWRIGHT,
    treatedAs: 'checked: a rule out of time is an ERROR, never a pass',
  },
  {
    input: '`--global-timeout`',
    kind: PLAYWRIGHT,
    treatedAs: 'checked: rules never started are not evaluated',
  },
  { input: '`--quiet`', kind: PLAYWRIGHT, treatedAs: 'neither: output only' },
  { input: '`--pass-with-no-tests`', kind: PLAYWRIGHT, treatedAs: 'checked: no rule run is INCOMPLETE' },
  {
    input: 'any other option, before or after `--`',
    kind: PLAYWRIGHT,
    treatedAs: 'checked: refused by name (exit 2)',
  },
  { input: '`$schema`', kind: FILE, treatedAs: 'neither: editor support' },
  {
    input: '`name`',
    kind: FILE,
    treatedAs: 'shown; the base URL is what is checked',
    vendorsWord: "that the name shown is the deployment's",
  },
  {
    input: '`baseUrl`',
    kind: FILE,
    treatedAs: 'checked: reached by the preflight, its certificate recorded (none recorded: partial)',
  },
  {
    input: '`otherTenantBaseUrl`',
    kind: FILE,
    treatedAs:
      "checked: another production tenant (not the base URL's host, not a sandbox), else its rules are not evaluated; another deployment is partial",
  },
  {
    input: '`sandboxBaseUrl`',
    kind: FILE,
    treatedAs: 'checked: reached by the preflight',
    vendorsWord: 'that it is the sandbox of the tenant under test',
  },
  {
    input: '`plainHttpBaseUrl`',
    kind: FILE,
    treatedAs:
      "in scope: `target.plainHttpBaseUrl`, `verify` warns when it is not the base URL's host on port 80",
  },
  {
    input: '`credentials.fullAccess`',
    kind: FILE,
    treatedAs: 'checked: KEY-VALID-SERVED shows it is served',
    vendorsWord: 'that the key has Full Access',
  },
  {
    input: '`credentials.readOnly`',
    kind: FILE,
    treatedAs: "checked: distinct from every other role's key",
    vendorsWord: 'that the key is Read Only',
  },
  {
    input: '`credentials.noCustomersPermission`',
    kind: FILE,
    treatedAs: 'checked: distinct',
    vendorsWord: 'that the key lacks the customers permission',
  },
  {
    input: '`credentials.revoked`',
    kind: FILE,
    treatedAs:
      'checked with `keyMinting`: the kit then mints a key, sees it served, revokes it and uses it instead, whatever this names',
    vendorsWord:
      'that the key was revoked (without `keyMinting`): a string that never was a key passes KEY-REVOKED-REJECTED as an unknown key does, whatever the deployment does with revoked keys',
    mintedBy: 'revoked',
  },
  {
    input: '`credentials.sandbox`',
    kind: FILE,
    treatedAs: 'checked: distinct',
    vendorsWord: 'that the key is a Development key of the tenant',
  },
  {
    input: '`credentials.otherTenant`',
    kind: FILE,
    treatedAs:
      "checked: distinct, and served its own tenant's list on `otherTenantBaseUrl`, else its rules are not evaluated",
  },
  { input: '`credentials.probe`', kind: FILE, vendorsWord: 'that the key is a valid key of the tenant' },
  {
    input: '`keyMinting`',
    kind: FILE,
    treatedAs: 'checked: keys the kit minted and revoked itself are what they say',
  },
  { input: '`caFile`', kind: FILE, treatedAs: 'in scope: `target.caFile`, `verify` warns of a private CA' },
  { input: '`profile`', kind: FILE, treatedAs: 'in scope: as `--profile`' },
  {
    input: '`hosts`',
    kind: FILE,
    treatedAs: 'in scope: `target.hosts`, `verify` warns of loopback or private addresses',
    vendorsWord: 'that DNS sent each name where the deployment is: the report records names, not addresses',
  },
  {
    input: '`NODE_EXTRA_CA_CERTS`',
    kind: 'environment',
    treatedAs: 'in scope: `target.trust` (and the CA file when the target names none), named by `verify`',
  },
  {
    input: '`NODE_OPTIONS`',
    kind: 'environment',
    treatedAs:
      'in scope: `target.trust`; code it loads (`--require`, `--import`) is a modified kit, which no report can show',
  },
  {
    input: '`SSL_CERT_FILE`, `SSL_CERT_DIR`',
    kind: 'environment / trust store',
    treatedAs: 'in scope: `target.trust`, named by `verify` with the private-CA warning',
  },
  {
    input: '`--use-openssl-ca`, `--use-system-ca`',
    kind: 'trust store',
    treatedAs: 'in scope: `target.trust`, named by `verify`',
  },
  {
    input: "the system's trust store",
    kind: 'trust store',
    treatedAs: '`verify --check-live` compares the certificates now',
    vendorsWord: 'that the machine that ran trusted no other CA',
  },
  {
    input: "the run's hand-over variables (`CONFORMANCE_PREFLIGHT`, …)",
    kind: 'environment',
    treatedAs: "checked: removed from a user's run",
  },
  {
    input: "`conformanceProjects()` options, a team's own projects",
    kind: 'team config',
    treatedAs:
      "checked: only the kit's rule projects give a rule's outcome; its options are the run options above",
  },
  {
    input: "Playwright's `--trace`, `use.trace`",
    kind: 'team config',
    treatedAs: "checked: the kit's tests never record a trace",
  },
];

/** The third column of a row: what the kit does, then what rests on the vendor's word. */
function treatment(row: VendorInput): string {
  const word = row.vendorsWord === undefined ? undefined : `the vendor's word ${row.vendorsWord}`;
  return [row.treatedAs, word].filter((part) => part !== undefined).join('; ');
}

export const INPUTS_TABLE_START =
  '<!-- vendor inputs: generated from conformance/report/vendor-inputs.ts (npm run docs) -->';
export const INPUTS_TABLE_END = '<!-- end of vendor inputs -->';

/** The table of docs/certification.md, as Markdown (prettier aligns it). */
export function inputsTableMarkdown(): string {
  return [
    '| input | kind | treated as |',
    '| --- | --- | --- |',
    ...VENDOR_INPUTS.map((row) => `| ${row.input} | ${row.kind} | ${treatment(row)} |`),
  ].join('\n');
}

/** `document` with its inputs table (between the markers) rendered from the rows. */
export function withInputsTable(document: string): string {
  const start = document.indexOf(INPUTS_TABLE_START);
  const end = document.indexOf(INPUTS_TABLE_END);
  if (start < 0 || end < start)
    throw new Error('The vendor inputs table markers are missing from the document.');
  return `${document.slice(0, start)}${INPUTS_TABLE_START}\n\n${inputsTableMarkdown()}\n\n${document.slice(end)}`;
}

/** What the report records that decides which rows rest on the vendor's word. */
export type VendorsWordFacts = Pick<ConformanceReport['target'], 'mode' | 'keysMinted'>;

/**
 * The lines of the vendor's word a run's scope carries, one per row that rests on it, in the
 * table's order: none for the embedded reference (the kit chose its every input), and none for a
 * credential the kit minted itself.
 */
export function vendorsWordOf(facts: VendorsWordFacts): string[] {
  if (facts.mode === 'embedded') return [];
  return VENDOR_INPUTS.filter(
    (row) =>
      row.vendorsWord !== undefined &&
      (row.mintedBy === undefined || !(facts.keysMinted ?? []).includes(row.mintedBy)),
  ).map(
    // Plain text, as the statement and verify show it: the table's code marks dropped.
    (row) => `${row.input} (${row.kind}): the vendor's word ${row.vendorsWord}`.replaceAll('`', ''),
  );
}

/** How the line of the revoked key begins (the badge marks a run whose revoked key is the vendor's word). */
const REVOKED_KEY_LINE = 'credentials.revoked ';

/** Whether the scope says the revoked key is the vendor's word: the badge then says so too. */
export function revokedKeyOnVendorsWord(scope: { vendorsWord?: readonly string[] } | undefined): boolean {
  return scope?.vendorsWord?.some((line) => line.startsWith(REVOKED_KEY_LINE)) ?? false;
}
