// What a fuzz case is: a request spelled as pieces, with fixture keys referred to by id so that a
// counterexample printed by fast-check names a key and never shows one, and what the fixtures
// say the answer must be. The expectations follow the decisions table
// (docs/decisions.md), written independently of the server's code.
import type { Fixtures } from '../../schemas/generated/fixtures.ts';
import type { Customer } from '../../schemas/generated/customers.ts';
import { apiHostname, type Environment } from '../../reference-server/http/hosts.ts';

export const DOMAIN = 'localhost';

/** Changes that make a key wrong while keeping it a well-formed token. */
export type KeyMutation =
  | { kind: 'truncate'; by: number }
  | { kind: 'extend'; with: string }
  | { kind: 'flip-case'; at: number }
  | { kind: 'replace'; at: number };

/** A piece of request text: literal text (UTF-8), raw bytes, a repeated run, or a fixture key by id. */
export type Piece =
  string | { bytes: number[] } | { repeat: string; times: number } | { key: string; mutation?: KeyMutation };

export type Text = readonly Piece[];

/** What the fixtures say the answer must be. */
export type Expectation =
  /** 200 with exactly the customers of this tenant and environment. */
  | { kind: 'data'; tenant: string; environment: Environment }
  /** That data, or a 4xx without data (the request holds bytes a parser may refuse). */
  | { kind: 'data-or-rejected'; tenant: string; environment: Environment }
  /** A 4xx without data; the status and the error codes allowed, when the decisions table names them. */
  | { kind: 'rejected'; status?: number; codes?: readonly string[] };

export interface FuzzRequest {
  /** TLS SNI; undefined sends none. */
  servername: string | undefined;
  method: Text;
  target: Text;
  version: Text;
  headers: ReadonlyArray<readonly [Text, Text]>;
  expect: Expectation;
}

export const REJECTED = {
  missing: { kind: 'rejected', status: 401, codes: ['missing_authorization_header'] },
  invalid: { kind: 'rejected', status: 401, codes: ['invalid_api_key'] },
  /** Either authentication error: the decisions table accepts both for this input. */
  unauthenticated: {
    kind: 'rejected',
    status: 401,
    codes: ['missing_authorization_header', 'invalid_api_key'],
  },
  forbidden: { kind: 'rejected', status: 403, codes: ['insufficient_permissions'] },
  misdirected: { kind: 'rejected', status: 421, codes: ['misdirected_request'] },
  badRequest: { kind: 'rejected', status: 400, codes: ['bad_request'] },
  notFound: { kind: 'rejected', status: 404, codes: ['not_found'] },
  methodNotAllowed: { kind: 'rejected', status: 405, codes: ['method_not_allowed'] },
  any: { kind: 'rejected' },
} as const satisfies Record<string, Expectation>;

const KEY_ALPHABET = /[A-Za-z]/g;

export interface KeyFacts {
  id: string;
  tenant: string;
  environment: Environment;
  secret: string;
  revoked: boolean;
  readsCustomers: boolean;
}

/** The fixtures as the oracle sees them. */
export class FixtureKnowledge {
  readonly keys: ReadonlyMap<string, KeyFacts>;
  readonly keyIds: readonly string[];
  readonly tenantIds: readonly string[];
  readonly #customers = new Map<string, readonly Customer[]>();

  constructor(fixtures: Fixtures) {
    const keys = new Map<string, KeyFacts>();
    for (const tenant of fixtures.tenants) {
      for (const key of tenant.keys) {
        const readsCustomers =
          key.access === 'custom' ? (key.permissions ?? []).includes('customers:read') : true;
        keys.set(key.id, {
          id: key.id,
          tenant: tenant.id,
          environment: key.environment,
          secret: key.secret,
          revoked: key.revoked ?? false,
          readsCustomers,
        });
      }
      this.#customers.set(`production:${tenant.id}`, tenant.customers.production);
      this.#customers.set(`sandbox:${tenant.id}`, tenant.customers.sandbox);
    }
    this.keys = keys;
    this.keyIds = [...keys.keys()];
    this.tenantIds = fixtures.tenants.map((tenant) => tenant.id);
  }

  key(id: string): KeyFacts {
    const key = this.keys.get(id);
    if (!key) throw new Error(`The fuzz model names key id ${id}, which the fixtures do not have.`);
    return key;
  }

  customers(tenant: string, environment: Environment): readonly Customer[] {
    return this.#customers.get(`${environment}:${tenant}`) ?? [];
  }

  /** The answer to a well-formed `Bearer <key>` on the host of (tenant, environment). */
  bearerOutcome(keyId: string, tenant: string, environment: Environment): Expectation {
    const key = this.key(keyId);
    if (key.tenant !== tenant || key.environment !== environment || key.revoked) return REJECTED.invalid;
    return key.readsCustomers ? { kind: 'data', tenant, environment } : REJECTED.forbidden;
  }
}

export function hostOf(tenant: string, environment: Environment): string {
  return apiHostname(tenant, environment, DOMAIN);
}

/** The bytes of a piece of text, keys filled in. */
export function render(text: Text, knowledge: FixtureKnowledge): Buffer {
  return Buffer.concat(text.map((piece) => renderPiece(piece, knowledge)));
}

function renderPiece(piece: Piece, knowledge: FixtureKnowledge): Buffer {
  if (typeof piece === 'string') return Buffer.from(piece, 'utf8');
  if ('bytes' in piece) return Buffer.from(piece.bytes);
  if ('repeat' in piece) return Buffer.from(piece.repeat.repeat(piece.times), 'utf8');
  const secret = knowledge.key(piece.key).secret;
  return Buffer.from(piece.mutation ? mutate(secret, piece.mutation) : secret, 'latin1');
}

/** A wrong key that is still a token: never equal to the original. */
export function mutate(secret: string, mutation: KeyMutation): string {
  switch (mutation.kind) {
    case 'truncate':
      return secret.slice(0, Math.max(0, secret.length - Math.max(1, mutation.by)));
    case 'extend':
      return secret + (mutation.with === '' ? 'x' : mutation.with);
    case 'flip-case': {
      const letters = [...secret.matchAll(KEY_ALPHABET)].map((match) => match.index);
      const at = letters[mutation.at % letters.length] ?? 0;
      const char = secret[at] ?? '';
      const flipped = char === char.toLowerCase() ? char.toUpperCase() : char.toLowerCase();
      return secret.slice(0, at) + flipped + secret.slice(at + 1);
    }
    case 'replace': {
      const at = mutation.at % secret.length;
      const replacement = secret[at] === '7' ? '8' : '7';
      return secret.slice(0, at) + replacement + secret.slice(at + 1);
    }
  }
}

export function requestBytes(request: FuzzRequest, knowledge: FixtureKnowledge): Buffer {
  const line = (...parts: Buffer[]): Buffer => Buffer.concat([...parts, Buffer.from('\r\n')]);
  const space = Buffer.from(' ');
  const colon = Buffer.from(': ');
  return Buffer.concat([
    line(
      render(request.method, knowledge),
      space,
      render(request.target, knowledge),
      space,
      render(request.version, knowledge),
    ),
    ...request.headers.map(([name, value]) => line(render(name, knowledge), colon, render(value, knowledge))),
    Buffer.from('\r\n'),
  ]);
}

/**
 * Whether the request may frame as more than one on the wire (a CR or LF inside a piece), or
 * asks the server to close the connection (any version but HTTP/1.1): it gets its own connection.
 */
export function needsOwnConnection(request: FuzzRequest, knowledge: FixtureKnowledge): boolean {
  const parts = [request.method, request.target, ...request.headers.flat()];
  const framing = parts.some((text) => /[\r\n]/.test(render(text, knowledge).toString('latin1')));
  return framing || render(request.version, knowledge).toString('latin1') !== 'HTTP/1.1';
}

/** The request as text for a failure message: keys shown as `<key id>`, never their value. */
export function describeRequest(request: FuzzRequest, knowledge: FixtureKnowledge): string {
  const bytes = requestBytes(request, knowledge).toString('latin1');
  const shown = redactSecrets(bytes, knowledge);
  const clipped = shown.length > 600 ? `${shown.slice(0, 600)}… (${shown.length} chars)` : shown;
  return `SNI ${request.servername ?? '(none)'}\n${JSON.stringify(clipped)}`;
}

/** Any fixture key (or a `mbk_…` run) in `text`, replaced by a marker that names no value. */
export function redactSecrets(text: string, knowledge: FixtureKnowledge): string {
  let shown = text;
  for (const key of knowledge.keys.values()) shown = shown.split(key.secret).join(`<${key.id}>`);
  return shown.replace(/mbk_[A-Za-z0-9_]*/g, '<key-like text>');
}
