// What the suite learns of each tenant's data before judging any answer: the distinctive values
// of the tenant under test and of the other tenant, each from its own authorised list — every page
// of it, up to the run's bounds (pages.ts).
import type { Api } from '../requests/api-client.ts';
import { jsonBody, type ResponseExchange } from '../requests/exchange.ts';
import type { ResolvedTarget } from '../deployment/target.ts';
import { followPages, listBounds, type FollowedList, type ListBounds, type NextPage } from './pages.ts';
import {
  distinctiveValues,
  valuesOfCommonRecords,
  withoutShared,
  leakedValues,
  type TenantValues,
} from './tenant-knowledge.ts';

export interface Knowledge {
  /** The tenant under test; undefined when no key could read its data. */
  own?: TenantValues;
  /** The other tenant; undefined without otherTenantBaseUrl and its key. */
  other?: TenantValues;
  /**
   * Why the other tenant's data is unknown although its URL and key were given: its request got
   * no answer of the target's own (no answer, or only transient ones). Its rules are then ERROR,
   * not "not evaluated": nothing is missing from the target file.
   */
  otherUnanswered?: string;
  /**
   * The values of the records both tenants' lists hold whole: in `own` and `other` both, since
   * either list may be the one that leaks them.
   */
  sharedRecords?: ReadonlySet<string>;
  /** Every distinctive value the tenant under test's own pages held, shared ones included. */
  ownServed?: ReadonlySet<string>;
  /** The other tenant's first page named a next one: how, and its URL (on the other tenant's host). */
  otherNextPage?: NextPage;
  /**
   * The request sent without a key to learn what an error body holds was served a tenant's data:
   * a failure wherever the suite sees it (conformance/run/rule-attachments.ts hands it to the reporter).
   */
  servedWithoutKey?: { exchange: ResponseExchange; tenant: string; values: string[] };
  /**
   * Lists not followed to their end: a bound (--max-list-pages, --max-list-records) stopped them
   * while a next page existed, a next page was not served, or was named in a way the suite can't or
   * mustn't follow (pages.ts). One sentence each; the run that learned them is partial.
   */
  listsCut?: string[];
  /**
   * The validators each tenant's first page was served with (its `ETag`, its `Last-Modified`): the
   * rejection probes send them back as a client with a stored copy does (If-None-Match,
   * If-Modified-Since), since a 304 to such a request without a valid key gives the copy in effect.
   */
  validators?: Partial<Record<'own' | 'other', Validators>>;
}

/** What a served answer said its representation can be validated by (RFC 9110 §8.8). */
export interface Validators {
  etag?: string;
  lastModified?: string;
}

type Learned =
  | {
      json: unknown;
      firstNext?: NextPage;
      stoppedBy?: string;
      unserved?: string;
      cut?: string;
      validators?: Validators;
    }
  | { unanswered: string }
  | { servedWithoutKey: ResponseExchange }
  | undefined;

export async function learnTenants(
  api: Api,
  target: ResolvedTarget,
  bounds: ListBounds = listBounds(),
): Promise<Knowledge> {
  const ownKey = target.credentials.fullAccess ?? target.credentials.readOnly;
  const otherKey = target.credentials.otherTenant;
  const [noiseDocument, ownDocument, otherDocument] = await Promise.all([
    // Whatever an unauthenticated error body contains cannot be tenant data.
    documentAt(api, target.baseUrl, undefined, bounds),
    ownKey ? documentAt(api, target.baseUrl, ownKey, bounds) : Promise.resolve(undefined),
    otherKey && target.otherTenantBaseUrl
      ? documentAt(api, target.otherTenantBaseUrl, otherKey, bounds)
      : Promise.resolve(undefined),
  ]);
  const [noise, own, other] = [noiseDocument, ownDocument, otherDocument].map((document) =>
    document && 'json' in document ? distinctiveValues(document.json) : undefined,
  );
  // A value both tenants' answers hold is no evidence of a leak (a default, a date), unless it
  // belongs to a record both answers hold whole: that record is itself the leak.
  const leakedRecords =
    ownDocument && 'json' in ownDocument && otherDocument && 'json' in otherDocument
      ? valuesOfCommonRecords(ownDocument.json, otherDocument.json)
      : new Set<string>();
  const knowledge: Knowledge = leakedRecords.size > 0 ? { sharedRecords: leakedRecords } : {};
  const clean = (values: Set<string>, against: Set<string> | undefined): Set<string> =>
    withoutShared(
      withoutShared(values, noise ?? new Set()),
      withoutShared(against ?? new Set(), leakedRecords),
    );
  if (own) {
    knowledge.ownServed = own;
    knowledge.own = {
      label: `the tenant under test (${new URL(target.baseUrl).hostname})`,
      values: clean(own, other),
    };
  }
  if (otherDocument && 'json' in otherDocument && otherDocument.firstNext)
    knowledge.otherNextPage = otherDocument.firstNext;
  if (other && target.otherTenantBaseUrl) {
    knowledge.other = {
      label: `the other tenant (${new URL(target.otherTenantBaseUrl).hostname})`,
      values: clean(other, own),
    };
  }
  if (otherDocument && 'unanswered' in otherDocument) knowledge.otherUnanswered = otherDocument.unanswered;
  if (noiseDocument && 'servedWithoutKey' in noiseDocument) {
    const served = noiseDocument.servedWithoutKey;
    const text = `${JSON.stringify(served.headers)}
${served.bodyText}`;
    for (const tenant of [knowledge.own, knowledge.other]) {
      const values = tenant ? leakedValues(text, tenant) : [];
      if (tenant && values.length > 0 && !knowledge.servedWithoutKey)
        knowledge.servedWithoutKey = { exchange: served, tenant: tenant.label, values };
    }
  }
  const cut = (document: Learned, whose: string, baseUrl: string | undefined): string[] => {
    if (!document || !('json' in document) || baseUrl === undefined) return [];
    const list = `The customer list of ${whose} (${new URL(baseUrl).host})`;
    if (document.stoppedBy !== undefined)
      return [
        `${list} was followed no further than ${document.stoppedBy} while it named a next page: records past it were not checked.`,
      ];
    if (document.unserved !== undefined)
      return [`${list} was not followed to its end: ${document.unserved}; records past it were not checked.`];
    if (document.cut !== undefined)
      return [`${list} was cut: ${document.cut}; records past it were not checked.`];
    return [];
  };
  const listsCut = [
    ...cut(ownDocument, 'the tenant under test', target.baseUrl),
    ...cut(otherDocument, 'the other tenant', target.otherTenantBaseUrl),
  ];
  if (listsCut.length > 0) knowledge.listsCut = listsCut;
  const validators = (document: Learned): Validators | undefined =>
    document && 'json' in document ? document.validators : undefined;
  const [ownValidators, otherValidators] = [validators(ownDocument), validators(otherDocument)];
  if (ownValidators || otherValidators)
    knowledge.validators = {
      ...(ownValidators ? { own: ownValidators } : {}),
      ...(otherValidators ? { other: otherValidators } : {}),
    };
  return knowledge;
}

async function documentAt(
  api: Api,
  baseUrl: string,
  key: string | undefined,
  bounds: ListBounds,
): Promise<Learned> {
  const url = `${baseUrl}/customers`;
  if (key === undefined) {
    const exchange = await api.get(url, {});
    if (exchange.kind === 'failure') return { unanswered: `GET ${url}: ${exchange.error}` };
    // Noise is what an error body holds. A keyless request served data (by a cache that ignores
    // Authorization, say) holds the tenant's own values: taken as noise, they would hide every
    // leak. Kept instead, to be judged once the tenants' values are known.
    if (exchange.status < 400) return { servedWithoutKey: exchange };
    return { json: jsonBody(exchange) ?? exchange.bodyText };
  }
  const list = await followPages(api, url, { headers: { Authorization: `Bearer ${key}` } }, bounds);
  const [first] = list.pages;
  if (first?.kind === 'failure') return { unanswered: `GET ${url}: ${first.error}` };
  if (first?.status !== 200) return undefined;
  // Every page served: one that failed or was refused adds nothing, and the list ends there.
  const json = list.pages.flatMap((page) =>
    page.kind === 'response' && page.status === 200 ? [jsonBody(page) ?? page.bodyText] : [],
  );
  const { etag, 'last-modified': lastModified } = first.headers;
  return {
    json: json.length === 1 ? json[0] : json,
    ...(etag !== undefined || lastModified !== undefined
      ? {
          validators: {
            ...(etag !== undefined ? { etag } : {}),
            ...(lastModified !== undefined ? { lastModified } : {}),
          },
        }
      : {}),
    ...(list.firstNext ? { firstNext: list.firstNext } : {}),
    ...(list.stoppedBy !== undefined ? { stoppedBy: list.stoppedBy } : {}),
    ...(list.unserved ? { unserved: unservedPage(list.unserved) } : {}),
    ...(list.cut ? { cut: cutPage(list.cut) } : {}),
  };
}

/** A next page a list named that the suite can't or mustn't follow, in one phrase. */
export function cutPage(cut: NonNullable<FollowedList['cut']>): string {
  return `its page ${cut.page} names a next page the suite did not follow: ${cut.form}`;
}

/** A next page a list named that was not served, in one phrase. */
export function unservedPage(unserved: NonNullable<FollowedList['unserved']>): string {
  return `its page ${unserved.page} (${unserved.url}), which it named as the next one, got ${unserved.answer}`;
}
