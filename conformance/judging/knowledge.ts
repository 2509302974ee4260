// What the suite learns of each tenant's data before judging any answer: the distinctive values
// of the tenant under test and of the other tenant, each from its own authorised response.
import type { Api } from '../requests/api-client.ts';
import { jsonBody } from '../requests/exchange.ts';
import type { ResolvedTarget } from '../target/target.ts';
import {
  distinctiveValues,
  valuesOfCommonRecords,
  withoutShared,
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
}

type Learned = { json: unknown } | { unanswered: string } | undefined;

export async function learnTenants(api: Api, target: ResolvedTarget): Promise<Knowledge> {
  const ownKey = target.credentials.fullAccess ?? target.credentials.readOnly;
  const otherKey = target.credentials.otherTenant;
  const [noiseDocument, ownDocument, otherDocument] = await Promise.all([
    // Whatever an unauthenticated error body contains cannot be tenant data.
    documentAt(api, target.baseUrl, undefined),
    ownKey ? documentAt(api, target.baseUrl, ownKey) : Promise.resolve(undefined),
    otherKey && target.otherTenantBaseUrl
      ? documentAt(api, target.otherTenantBaseUrl, otherKey)
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
  const knowledge: Knowledge = {};
  const clean = (values: Set<string>, against: Set<string> | undefined): Set<string> =>
    withoutShared(
      withoutShared(values, noise ?? new Set()),
      withoutShared(against ?? new Set(), leakedRecords),
    );
  if (own)
    knowledge.own = {
      label: `the tenant under test (${new URL(target.baseUrl).hostname})`,
      values: clean(own, other),
    };
  if (other && target.otherTenantBaseUrl) {
    knowledge.other = {
      label: `the other tenant (${new URL(target.otherTenantBaseUrl).hostname})`,
      values: clean(other, own),
    };
  }
  if (otherDocument && 'unanswered' in otherDocument) knowledge.otherUnanswered = otherDocument.unanswered;
  return knowledge;
}

async function documentAt(api: Api, baseUrl: string, key: string | undefined): Promise<Learned> {
  const url = `${baseUrl}/customers`;
  const exchange = await api.get(url, key ? { headers: { Authorization: `Bearer ${key}` } } : {});
  if (exchange.kind === 'failure') return { unanswered: `GET ${url}: ${exchange.error}` };
  if (key !== undefined && exchange.status !== 200) return undefined;
  // Noise is what an error body holds. A keyless request served data (by a cache that ignores
  // Authorization, say) holds the tenant's own values: taken as noise, they would hide every leak.
  if (key === undefined && exchange.status < 400) return undefined;
  return { json: jsonBody(exchange) ?? exchange.bodyText };
}
