// What the server learns of a request, once, on its way through: which site it is addressed to and
// whether it was misdirected (decided by addressing/address.ts before any site runs), then what the
// site made of it. The access log, the client journal and every site read these facts instead of
// working them out again from the request.
import type { AuthorizationHeader } from './authorization-header.ts';
import type { ApiHost, PanelHost } from './hosts.ts';

/** The site a request's host names: a tenant API, a tenant's panel, the admin API, or none. */
export type Site =
  | { kind: 'api'; hostname: string; host: ApiHost }
  | { kind: 'panel'; hostname: string; host: PanelHost }
  | { kind: 'admin'; hostname: string }
  /** A host this server does not serve, or (hostname undefined) no host or more than one. */
  | { kind: 'none'; hostname: string | undefined };

/** Whether the connection's TLS SNI named the request's host (`missing`: no SNI was sent). */
export type SniFact = 'match' | 'mismatch' | 'missing';

/**
 * Why a request is answered 421 Misdirected Request (RFC 9110 §7.4): its `Host` names another port,
 * a host this server does not serve, or another host than the connection was opened for (SNI).
 */
export type Misdirection = 'port' | 'host' | 'sni';

export interface Address {
  site: Site;
  sni: SniFact;
  misdirected: Misdirection | undefined;
}

export interface RequestFacts {
  readonly address: Address;
  /** The tenant, environment and key a site served the request as: the access log's. Never the key. */
  tenant: string | undefined;
  environment: string | undefined;
  keyId: string | undefined;
  /** The `Authorization` header as the API's pipeline read it, once it did. */
  authorization: AuthorizationHeader | undefined;
  /** The path of the API route the request's path names, once the pipeline looked it up. */
  route: string | undefined;
  /** The behaviour of a client's test that answered the request (behaviours/), and how. */
  behaviour: BehaviourFact | undefined;
}

/** `cut`: no answer was written; `refused`: the server said it did not process it (RFC 9113 §8.7). */
export interface BehaviourFact {
  name: string;
  cut?: 'reset' | 'goaway' | 'rst-stream';
  refused?: boolean;
}

/** The facts of a request addressed as `address`, before any site has run. */
export function factsOf(address: Address): RequestFacts {
  return {
    address,
    tenant: undefined,
    environment: undefined,
    keyId: undefined,
    authorization: undefined,
    route: undefined,
    behaviour: undefined,
  };
}
