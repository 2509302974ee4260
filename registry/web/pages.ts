// The registry's pages, rendered on the server from stored runs (no script, no build step):
// the certified implementations, a deployment's history (verdict per version and a rule × version
// grid), and a run (its facts, scope and rules, with links to its HTML report and evidence).
import { ALL_PROTOCOLS, type RuleOutcome, type StoredRun } from '../store/runs.ts';
import type { Release } from '../store/releases.ts';
import { targetText, type TargetMove } from '../store/targets.ts';
import { html, page, verdictClass, type Html } from './html.ts';

const date = (iso: string): string => iso.slice(0, 10);
const shortSigner = (signer: string): string => `${signer.slice(0, 'sha256:'.length + 16)}…`;
const scopeText = (run: StoredRun): string =>
  `${run.protocolsChecked.join(', ')}${run.partial.length > 0 ? ' (partial)' : ''}`;
/** verify's warnings of a run, shown wherever the run is: a signature does not tie these down. */
const warningsText = (run: StoredRun): string =>
  run.warnings.length > 0 ? `${run.warnings.length} warning${run.warnings.length > 1 ? 's' : ''}` : 'none';

/** A run the registry checked itself (registry recheck), marked wherever it is listed. */
const REGISTRY_CHECKED_TITLE =
  "the registry ran the kit against the deployment's bound target with the operator's keys, and signed the run with its own key";
const checkedMark = (run: StoredRun): Html | string =>
  run.checkedBy === 'registry'
    ? html`,
        <span class="checked-by-registry" title="${REGISTRY_CHECKED_TITLE}">checked by the registry</span>`
    : '';

/** Where the list goes on: links to the next page and back to the first (plain links, no script). */
export interface Paging {
  /** The path of the next page, when there is one. */
  next?: string | undefined;
  /** The path of the first page, when this page is a later one. */
  first?: string | undefined;
}

export function pager({ next, first }: Paging): Html | string {
  if (next === undefined && first === undefined) return '';
  return html`<nav class="pages">
    ${first !== undefined ? html`<a id="first-page" href="${first}">First page</a>` : ''}
    ${next !== undefined ? html`<a id="next-page" rel="next" href="${next}">Next page</a>` : ''}
  </nav>`;
}

export function certifiedPage(
  certified: readonly StoredRun[],
  others: readonly string[],
  paging: Paging = {},
): string {
  const rows = certified.map(
    (run) =>
      html`<tr>
        <td><a href="/deployments/${run.deployment}">${run.deployment}</a></td>
        <td>${run.version}</td>
        <td>${run.profile}</td>
        <td>${scopeText(run)}</td>
        <td>${date(run.startedAt)}</td>
        <td class="mono" title="${run.signer}">${shortSigner(run.signer)}</td>
        <td class="warnings" title="${run.warnings.join(' ')}">${warningsText(run)}</td>
        <td>
          <a href="/runs/${run.id}"
            ><img src="/badge/${run.deployment}.svg" alt="badge of ${run.deployment}"
          /></a>
        </td>
      </tr>`,
  );
  return page(
    'Certified implementations',
    html`<h1>Certified implementations</h1>
      <p>
        Each deployment's latest CONFORMANT run. Every run here was verified on arrival: its files against
        their digests, its verdict against its rules, and its signature against the keys of the publisher who
        sent it. The badge shows the deployment's latest run, whatever its verdict.
      </p>
      ${
        certified.length > 0
          ? html`<table id="certified">
              <thead>
                <tr>
                  <th>Deployment</th>
                  <th>Version</th>
                  <th>Profile</th>
                  <th>Protocols</th>
                  <th>Date</th>
                  <th>Signer</th>
                  <th>verify warns</th>
                  <th>Badge (latest run)</th>
                </tr>
              </thead>
              <tbody>
                ${rows}
              </tbody>
            </table>`
          : html`<p id="certified">
              No deployment ${paging.first !== undefined ? 'of this page ' : ''}has a CONFORMANT run yet.
            </p>`
      }
      ${
        others.length > 0
          ? html`<h2>Other deployments</h2>
              <p>
                No CONFORMANT run published:
                ${others.map((name, index) => html`${index > 0 ? ', ' : ''}<a href="/deployments/${name}">${name}</a>`)}
              </p>`
          : ''
      }
      ${pager(paging)}`,
  );
}

/** Each version's runs, the versions in the order given (else of their first run by start time). */
function byVersion(runs: readonly StoredRun[], order: readonly string[] = []): Map<string, StoredRun[]> {
  const versions = new Map<string, StoredRun[]>(order.map((version) => [version, []]));
  for (const run of runs) versions.set(run.version, [...(versions.get(run.version) ?? []), run]);
  return versions;
}

/** The live version (the newest release recorded) and the run that decides it, if one does. */
export interface LiveVersion {
  release: Release;
  run?: StoredRun;
}

/** A yanked run, wherever it is listed: kept, marked, with who and why. */
const yankedText = (run: StoredRun): Html =>
  run.yanked
    ? html`,
        <span class="yanked" title="yanked by ${run.yanked.by} at ${run.yanked.at}"
          >yanked: ${run.yanked.reason}</span
        >`
    : html``;

export function deploymentPage(
  name: string,
  everyRun: readonly StoredRun[],
  outcomes: readonly (RuleOutcome & { runId: number })[],
  moves: readonly TargetMove[] = [],
  live?: LiveVersion,
  paging: Paging & { versions?: readonly string[] } = {},
): string {
  const versions = byVersion(everyRun, paging.versions);
  // The grid is of the runs that stand: a yanked run is listed with its version, and counted nowhere.
  const runs = everyRun.filter((run) => run.yanked === null);
  const latest = runs.at(-1);
  const verdictOf = new Map<string, string>(); // `${runId} ${ruleId}` → verdict
  const rules = new Set<string>();
  for (const outcome of outcomes)
    if (outcome.protocol === ALL_PROTOCOLS) {
      verdictOf.set(`${outcome.runId} ${outcome.ruleId}`, outcome.verdict);
      rules.add(outcome.ruleId);
    }
  const cell = (versionRuns: readonly StoredRun[], ruleId: string): Html => {
    if (versionRuns.length === 0) return html`<td class="yanked">yanked</td>`;
    const verdicts = [...new Set(versionRuns.map((run) => verdictOf.get(`${run.id} ${ruleId}`) ?? '—'))];
    if (verdicts.length === 1)
      return html`<td class="${verdictClass(verdicts[0] ?? '')}">${verdicts[0]}</td>`;
    return html`<td class="v-unstable" title="differs between runs of this version">
      unstable: ${verdicts.join(' / ')}
    </td>`;
  };
  // Rules whose outcome differs between runs or versions first: what a reader comes to see.
  const differs = (ruleId: string): boolean =>
    new Set(runs.map((run) => verdictOf.get(`${run.id} ${ruleId}`) ?? '—')).size > 1;
  const ordered = [...rules].sort((a, b) => Number(differs(b)) - Number(differs(a)) || a.localeCompare(b));
  return page(
    name,
    html`<h1>${name}</h1>
      <p><img src="/badge/${name}.svg" alt="badge of ${name}" /></p>
      ${
        live
          ? html`<p id="live">
              Live: <strong>${live.release.version}</strong> (recorded ${live.release.recordedAt} by
              ${live.release.recordedBy}),
              ${live.run ? html`<a class="${verdictClass(live.run.verdict)}" href="/runs/${live.run.id}">run ${live.run.id}: ${live.run.verdict}</a>` : 'no run that stands (every run of it is yanked)'}
            </p>`
          : ''
      }
      <p>
        Badge URL:
        <code>/badge/${name}.svg</code>${latest ? html` · base URL <code>${latest.baseUrl}</code>` : ''} ·
        <a id="deliveries-link" href="/deployments/${name}/deliveries">webhook deliveries</a>
      </p>
      ${
        moves.length > 0
          ? html`<h2>Target moves</h2>
              <ul id="target-moves">
                ${moves.map(
                  (move) =>
                    html`<li>
                      ${move.movedAt.slice(0, 10)}: ${targetText(move.from)} → ${targetText(move.to)}, said by
                      ${move.publisher} with <a href="/runs/${move.runId}">run ${move.runId}</a>
                    </li>`,
                )}
              </ul>`
          : ''
      }
      <h2>Versions</h2>
      ${pager(paging)}
      <table id="versions">
        <thead>
          <tr>
            <th>Version</th>
            <th>Runs (verdict, profile, protocols, date)</th>
          </tr>
        </thead>
        <tbody>
          ${[...versions].map(
            ([version, versionRuns]) =>
              html`<tr>
                <td>${version}</td>
                <td>
                  ${versionRuns.map(
                    (run) =>
                      html`<div>
                        <a class="${verdictClass(run.verdict)}" href="/runs/${run.id}"
                          >run ${run.id}: ${run.verdict}</a
                        >${checkedMark(run)}, ${run.profile}, ${scopeText(run)},
                        ${date(run.startedAt)}${run.warnings.length > 0 ? html`, <span class="warnings" title="${run.warnings.join(' ')}">${warningsText(run)}</span>` : ''}${yankedText(run)}
                      </div>`,
                  )}
                </td>
              </tr>`,
          )}
        </tbody>
      </table>
      <h2>Rules by version</h2>
      <p>
        Each rule's verdict in each version's
        runs${paging.next !== undefined || paging.first !== undefined ? ' (the versions of this page)' : ''};
        the rules that changed come first.
      </p>
      <table id="grid" class="grid">
        <thead>
          <tr>
            <th>Rule</th>
            ${[...versions].map(
              ([version, versionRuns]) => html`<th>${version}${registryCheckedMark(versionRuns)}</th>`,
            )}
          </tr>
        </thead>
        <tbody>
          ${ordered.map(
            (ruleId) =>
              html`<tr>
                <td class="mono">${ruleId}</td>
                ${[...versions.values()].map((versionRuns) =>
                  cell(
                    versionRuns.filter((run) => run.yanked === null),
                    ruleId,
                  ),
                )}
              </tr>`,
          )}
        </tbody>
      </table>
      ${pager(paging)}`,
  );
}

export function runPage(run: StoredRun, outcomes: readonly RuleOutcome[], files: readonly string[]): string {
  const protocols = [...new Set(outcomes.map((o) => o.protocol).filter((p) => p !== ALL_PROTOCOLS))].sort();
  const byRule = new Map<string, Map<string, RuleOutcome>>();
  for (const outcome of outcomes)
    byRule.set(
      outcome.ruleId,
      (byRule.get(outcome.ruleId) ?? new Map<string, RuleOutcome>()).set(outcome.protocol, outcome),
    );
  // The scope's settings (every setting that can change a verdict) where the kit records them;
  // the report's options otherwise (a bundle of an earlier kit).
  const recorded = (run.scope as { settings?: unknown } | null)?.settings ?? run.options;
  const options = recorded && typeof recorded === 'object' ? Object.entries(recorded) : [];
  return page(
    `${run.deployment} ${run.version} · run ${run.id}`,
    html`<h1>Run ${run.id}: <a href="/deployments/${run.deployment}">${run.deployment}</a> ${run.version}</h1>
      <p id="verdict" class="${verdictClass(run.verdict)}">
        <strong>${run.verdict}</strong> under the ${run.profile} profile, over
        ${run.protocolsChecked.join(' and ')}
      </p>
      <p>
        <a id="report" href="/runs/${run.id}/files/conformance.html">HTML report</a> ·
        <a id="evidence" href="/runs/${run.id}/files/exchanges.har">evidence (HAR)</a> ·
        <a href="/runs/${run.id}/files/conformance.json">conformance.json</a>
      </p>
      <dl>
        <dt>Checked by</dt>
        <dd id="checked-by">
          ${
            run.checkedBy === 'registry'
              ? html`<span class="checked-by-registry">the registry</span>: ${REGISTRY_CHECKED_TITLE}
                  (registry recheck)`
              : html`its publisher, ${run.publisher}: the signature proves who published and that the bundle
                is intact, not what ran`
          }
        </dd>
        <dt>Target</dt>
        <dd>${run.targetName} · <code>${run.baseUrl}</code></dd>
        <dt>Scope</dt>
        <dd>
          checked ${run.protocolsChecked.join(', ')} of ${run.protocolsOffered.join(', ')} offered;
          ${run.rulesSelected} of ${run.rulesInCatalog} rules
          selected${run.partial.length > 0 ? html`<br />PARTIAL: ${run.partial.join(' ')}` : ''}
        </dd>
        <dt>Settings</dt>
        <dd class="mono">
          ${options.length > 0 ? options.map(([key, value], index) => html`${index > 0 ? ', ' : ''}${key}=${JSON.stringify(value)}`) : 'not recorded'}
        </dd>
        ${
          run.yanked
            ? html`<dt>Yanked</dt>
                <dd id="yanked">
                  at ${run.yanked.at} by ${run.yanked.by}: ${run.yanked.reason} — kept, and deciding nothing
                </dd>`
            : ''
        }
        ${
          run.filesRemovedAt
            ? html`<dt>Files</dt>
                <dd id="files-removed">
                  removed by the retention policy at ${run.filesRemovedAt}; the verdict and rules are kept
                </dd>`
            : ''
        }
        <dt>verify warns</dt>
        <dd id="warnings">
          ${
            run.warnings.length > 0
              ? html`<ul>
                  ${run.warnings.map((warning) => html`<li>${warning}</li>`)}
                </ul>`
              : 'nothing'
          }
        </dd>
        <dt>Signer</dt>
        <dd class="mono">${run.signer}</dd>
        <dt>Publisher</dt>
        <dd>${run.publisher}</dd>
        <dt>Ran</dt>
        <dd>${run.startedAt} (kit ${run.kitVersion})</dd>
        <dt>Published</dt>
        <dd>${run.publishedAt}</dd>
        <dt>Bundle</dt>
        <dd class="mono">sha256:${run.bundleSha256} (of its SHA256SUMS)</dd>
        <dt>Statement</dt>
        <dd class="mono">sha256:${run.statementSha256}</dd>
        <dt>Files</dt>
        <dd>
          ${files.map((name, index) => html`${index > 0 ? ' · ' : ''}<a href="/runs/${run.id}/files/${name}">${name}</a>`)}
        </dd>
      </dl>
      <h2>Rules</h2>
      <table id="rules" class="grid">
        <thead>
          <tr>
            <th>Rule</th>
            <th>Level</th>
            <th>Verdict</th>
            ${protocols.map((protocol) => html`<th>${protocol}</th>`)}
          </tr>
        </thead>
        <tbody>
          ${[...byRule].map(([ruleId, perProtocol]) => {
            const all = perProtocol.get(ALL_PROTOCOLS);
            return html`<tr>
              <td class="mono">${ruleId}</td>
              <td>${all?.level}</td>
              <td class="${verdictClass(all?.verdict ?? '')}">${all?.verdict}</td>
              ${protocols.map((protocol) => {
                const verdict = perProtocol.get(protocol)?.verdict ?? '—';
                return html`<td class="${verdictClass(verdict)}">${verdict}</td>`;
              })}
            </tr>`;
          })}
        </tbody>
      </table>`,
  );
}

/** The grid's mark on a version the registry checked itself (a run of its own, not yanked). */
function registryCheckedMark(versionRuns: readonly StoredRun[]): Html | string {
  return versionRuns.some((run) => run.yanked === null && run.checkedBy === 'registry')
    ? html`<br /><span class="checked-by-registry" title="${REGISTRY_CHECKED_TITLE}"
          >checked by the registry</span
        >`
    : '';
}
