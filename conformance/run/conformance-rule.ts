// How a rule's declaration (conformance/run/rule-declaration.ts) becomes its Playwright test, the
// only way a spec checks a rule: `registerRules` makes one test per rule, titled, tagged and
// annotated from the catalog entry; the test skips the rule as "not evaluated" when the target
// lacks an input, builds the check's context, and applies the rule's level — a failed MUST fails
// the run, a failed HTTP rule fails it under `strict`, anything else becomes a warning.
import type { TestInfo } from '@playwright/test';
import type { RawClient } from '../requests/raw-client.ts';
import { RawApi } from '../requests/raw-api.ts';
import type { Api } from '../requests/api-client.ts';
import { protocolsOfRun, type Protocol } from '../requests/protocols.ts';
import { Checks, ConformanceFailure } from '../judging/checks.ts';
import { missingInputs, notEvaluatedReason } from '../deployment/inputs.ts';
import type { Input } from '../catalog/rule.ts';
import type { RuleId } from '../catalog/rules.ts';
import type { KeyNamer } from '../redaction/shown-keys.ts';
import type { Exchange } from '../requests/exchange.ts';
import type { CredentialName, ResolvedTarget } from '../deployment/target.ts';
import { failsRun } from '../report/verdict.ts';
import { describeProblem, type DeclaredUrl } from '../deployment/preflight.ts';
import { ANNOTATION } from './annotations.ts';
import { test } from './test.ts';
import { batchVariantNames, batchVariantTitle } from './batch-variants.ts';
import type { RuleContext } from './rule-context.ts';
import type { RuleDeclaration } from './rule-declaration.ts';
import { notApplicable, notEvaluated, RuleEnd } from './rule-end.ts';
import { roleNotShownReason, roleProblems } from './target-roles.ts';
import { attachExchanges, attachLearningOnce, recordEvidence } from './rule-attachments.ts';
import { keepWorkerAfterFailure } from './failed-rules-keep-worker.ts';
import { userAgentsFor } from '../requests/user-agents.ts';

/**
 * One test per rule, in the order given: a spec file registers its group's declarations. In the
 * mutation campaign's batch, once per variant, each variant's under a describe of its own
 * (batch-variants.ts); a conformance run's titles are the rules' alone.
 */
export function registerRules(declarations: readonly RuleDeclaration<RuleId>[]): void {
  const variants = batchVariantNames();
  if (!variants) {
    for (const declaration of declarations) conformanceRule(declaration);
    return;
  }
  for (const name of variants)
    test.describe(batchVariantTitle(name), () => {
      test.use({ batchVariantName: name });
      for (const declaration of declarations) conformanceRule(declaration);
    });
}

function conformanceRule(rule: RuleDeclaration<RuleId>): void {
  test(
    `${rule.level} ${rule.id}: ${rule.statement}`,
    {
      tag: `@${rule.id}`,
      annotation: [
        { type: ANNOTATION.rule, description: rule.id },
        { type: ANNOTATION.level, description: rule.level },
        { type: ANNOTATION.source, description: rule.source },
      ],
    },
    async ({ api, variant, target, settings, knowledge, exchanges, failedRulesKeepWorker }, testInfo) => {
      const { raw, namer, learningExchanges, unreachable } = variant;
      // Each request's User-Agent is picked by the rule and the request's index in it.
      userAgentsFor(rule.id);
      await attachLearningOnce(testInfo, learningExchanges, namer, knowledge);
      // A list learned in part: whatever this rule finds, the records past the bound were not seen.
      for (const cut of knowledge.listsCut ?? [])
        testInfo.annotations.push({ type: ANNOTATION.listCut, description: cut });
      const missing = missingInputs(target, rule.needs);
      if (missing.length > 0)
        skipRule(testInfo, new RuleEnd(ANNOTATION.notEvaluated, notEvaluatedReason(missing, target.file)));
      // A URL the preflight could not reach first: what its role is cannot be shown either.
      const unreached = rule.needs.flatMap((input) => {
        const problem = unreachable.get(input as DeclaredUrl);
        return problem ? [problem] : [];
      });
      if (unreached.length > 0)
        skipRule(
          testInfo,
          new RuleEnd(
            ANNOTATION.notEvaluated,
            `not evaluated: the preflight could not reach ${unreached.map(describeProblem).join(' ')}`,
          ),
        );
      // A role the target does not show (a sandbox as the other tenant, one key in two roles) judges nothing.
      const roleNotShown = roleNotShownReason(roleProblems(target, knowledge), rule.needs);
      if (roleNotShown !== undefined) skipRule(testInfo, new RuleEnd(ANNOTATION.notEvaluated, roleNotShown));
      const check = new Checks(namer, knowledge);
      const contextOver = (ruleApi: Api, ruleRaw: RawClient): RuleContext => {
        const context: RuleContext = {
          api: ruleApi,
          raw: ruleRaw,
          check,
          target,
          settings,
          knowledge,
          credential: (name) => declaredCredential(target, rule.needs, name),
          bearer: (name) => `Bearer ${declaredCredential(target, rule.needs, name)}`,
          customersUrl: (baseName) =>
            `${baseName ? declaredUrl(target, rule.needs, baseName) : target.baseUrl}/customers`,
          get otherTenant() {
            return { baseUrl: declaredUrl(target, rule.needs, 'otherTenantBaseUrl') };
          },
          overHttp2: () => http2ClientFor(ruleRaw, target.baseUrl, protocolsOfRun(settings)),
        };
        return context;
      };
      const listened = raw.listening((exchange) => exchanges.push(exchange));
      const context = contextOver(api, listened);
      try {
        await rule.check(context);
        // A keyless request that gets data is a failure wherever the suite sees it, whatever the
        // rule that sent it asks of the answer (an error body's shape, a path not missing, …).
        check.noDataWithoutKey(exchanges);
        if (checkedOverAlpnHttp11(rule, listened)) {
          const overAlpn = listened.withHttp1Alpn('http/1.1');
          await overAlpnHttp11(() => rule.check(contextOver(new RawApi(overAlpn), overAlpn)));
          check.noDataWithoutKey(exchanges);
        }
      } catch (thrown) {
        // A rule that ended without a verdict says so first, as when it ended (rule-end.ts).
        if (thrown instanceof RuleEnd)
          testInfo.annotations.push({ type: thrown.annotation, description: thrown.reason });
        // The same when the rule ended otherwise (an ERROR, not applicable): a leak outweighs it.
        const error =
          thrown instanceof ConformanceFailure ? thrown : (keylessLeak(check, exchanges) ?? thrown);
        if (error instanceof RuleEnd) testInfo.skip(true, error.reason);
        if (!(error instanceof ConformanceFailure)) throw redacted(error, namer);
        await recordEvidence(testInfo, error);
        if (failsRun(rule.level, target.profile)) {
          keepWorkerAfterFailure(testInfo, failedRulesKeepWorker);
          throw error;
        }
        testInfo.annotations.push({ type: ANNOTATION.warning, description: error.message });
      } finally {
        await attachExchanges(testInfo, ANNOTATION.exchanges, exchanges, namer);
      }
    },
  );
}

/**
 * The isolation and authentication MUSTs are checked over HTTP/1.1 as clients reach it: on
 * connections that offer no ALPN (Playwright's request context: the first pass) and, once more, on
 * connections that offer ALPN `http/1.1` (curl --http1.1, Python's requests, Go's net/http without
 * HTTP/2). A deployment may route the two differently (docs/decisions/0037).
 */
export function checkedOverAlpnHttp11(
  rule: Pick<RuleDeclaration<RuleId>, 'id' | 'level' | 'http2Only'>,
  raw: Pick<RawClient, 'protocol'>,
): boolean {
  return (
    raw.protocol === 'h1' &&
    rule.level === 'MUST' &&
    rule.http2Only !== true &&
    ALPN_CHECKED_AREAS.some((area) => rule.id.startsWith(`${area}-`))
  );
}

/** The rule areas of isolation and authentication (ids `AREA-…`). */
export const ALPN_CHECKED_AREAS = ['AUTH', 'ENV', 'KEY', 'PERM', 'TENANT'] as const;

/** The second pass of a check, its failure saying which connection kind it came from. */
async function overAlpnHttp11(check: () => Promise<void>): Promise<void> {
  try {
    await check();
  } catch (thrown) {
    if (!(thrown instanceof ConformanceFailure)) throw thrown;
    throw new ConformanceFailure(
      `Over HTTP/1.1 on TLS connections offering ALPN http/1.1 (the same check passed on connections offering no ALPN): ${thrown.message}`,
      thrown.evidence,
      thrown.leak,
    );
  }
}

/** Skips the rule before its check runs, with the annotation the reporter reads its verdict from. */
function skipRule(testInfo: TestInfo, end: RuleEnd): never {
  testInfo.annotations.push({ type: end.annotation, description: end.reason });
  testInfo.skip(true, end.reason);
  throw end;
}

async function http2ClientFor(
  raw: RawClient,
  baseUrl: string,
  runProtocols: readonly Protocol[],
): Promise<RawClient> {
  if (raw.protocol === 'h1' && runProtocols.includes('h2'))
    notEvaluated(
      "not evaluated over HTTP/1.1: a rule of HTTP/2's own, checked in this run's HTTP/2 project.",
    );
  const agrees = await raw.agreesToHttp2(baseUrl);
  if (agrees === undefined)
    throw new Error(
      `The TLS handshake with ${baseUrl} offering h2 and http/1.1 did not complete: whether the target speaks HTTP/2 is not known.`,
    );
  if (!agrees)
    notApplicable(
      "not applicable: a rule of HTTP/2's own, and the target does not offer HTTP/2 by ALPN — no HTTP/2 request can reach it, so it was not exercised.",
    );
  return raw.withProtocol('h2');
}

/** The failure of a keyless request answered with a tenant's data among `exchanges`, if any. */
function keylessLeak(check: Checks, exchanges: readonly Exchange[]): ConformanceFailure | undefined {
  try {
    check.noDataWithoutKey(exchanges);
    return undefined;
  } catch (error) {
    if (error instanceof ConformanceFailure) return error;
    throw error;
  }
}

/**
 * An error that is not a verdict (a network failure, a defect) goes to every report as it is:
 * if its message holds a key, it is replaced by a redacted copy first.
 */
function redacted(error: unknown, namer: KeyNamer): unknown {
  if (!(error instanceof Error)) return error;
  const message = namer.show(error.message);
  if (message === error.message && namer.show(error.stack ?? '') === error.stack) return error;
  const copy = new Error(message);
  copy.stack = namer.show(error.stack ?? '');
  return copy;
}

function declaredCredential(target: ResolvedTarget, needs: readonly Input[], name: CredentialName): string {
  const value = target.credentials[name];
  if (!needs.includes(`credentials.${name}`) || value === undefined) {
    throw new Error(
      `Defect in the suite: a rule used credentials.${name} without declaring it in its needs.`,
    );
  }
  return value;
}

function declaredUrl(
  target: ResolvedTarget,
  needs: readonly Input[],
  name: 'otherTenantBaseUrl' | 'sandboxBaseUrl',
): string {
  const value = target[name];
  if (!needs.includes(name) || value === undefined) {
    throw new Error(`Defect in the suite: a rule used ${name} without declaring it in its needs.`);
  }
  return value;
}
