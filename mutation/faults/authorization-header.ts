// The Authorization header (spec §5 Scheme, §7): the faults that break these rules (see ../fault.ts).
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Http2ServerRequest } from 'node:http2';
import { parseAuthorization } from '../../reference-server/http/authorization-header.ts';
import { apiError } from '../../reference-server/http/errors.ts';
import { fieldLines } from '../../reference-server/http/field-lines.ts';
import { pathOf } from '../../reference-server/http/request-target.ts';
import type { ServerSteps } from '../../reference-server/steps/server-steps.ts';
import {
  ANY_ORIGIN,
  changingAnswers,
  CORRECT,
  editingHeaders,
  overHttp2,
  URL_KEY_PARAMETERS,
  type Fault,
} from '../fault.ts';

/** The User-Agent the suite used to announce itself with: the one a cloaking front checks keys for. */
const CLOAKED_FOR = 'tenant-auth-conformance';

/** A GET of the customers list without Authorization from any client but the announced suite. */
function cloakedFrom(req: IncomingMessage): boolean {
  return (
    req.method === 'GET' &&
    pathOf(req.url ?? '/') === '/v1/customers' &&
    fieldLines(req, 'authorization').length === 0 &&
    fieldLines(req, 'user-agent')[0] !== CLOAKED_FOR
  );
}

/**
 * A cloaking front: the requests `cloakedFrom` picks are let through as if they carried a read key
 * of the host's tenant and environment. The pipeline only knows a key by its token, so the front
 * hands it a token of its own — random per server, so that no client can send it — and the lookup
 * answers that token with such a key for whichever host the request named.
 */
function keylessServedToOtherAgents(): Pick<ServerSteps, 'authorizationOf' | 'findKey'> {
  const frontToken = `cloaking-front-${randomUUID()}`;
  return {
    authorizationOf: (req) =>
      cloakedFrom(req) ? { kind: 'bearer', token: frontToken } : CORRECT.authorizationOf(req),
    findKey: (context, host, token) =>
      token === frontToken
        ? {
            id: 'cloaking-front',
            tenant: host.tenant,
            environment: host.environment,
            permissions: new Set(['customers:read'] as const),
            revoked: false,
          }
        : CORRECT.findKey(context, host, token),
  };
}

export const AUTHORIZATION_HEADER_FAULTS = {
  'h2-first-authorization-wins': {
    description:
      "Over HTTP/2 the key is read from Node's header object, which keeps the first of two authorization fields: a header block with a valid key first is served (HTTP/1.1 is read line by line, as it should be).",
    catches: ['AUTH-H2-DUPLICATE-AUTHORIZATION-REJECTED'],
    steps: () => ({
      authorizationOf: (req) => {
        if (!overHttp2(req)) return CORRECT.authorizationOf(req);
        const first = req.headers.authorization;
        return parseAuthorization(first === undefined ? [] : [first]);
      },
    }),
  },
  'h2-connection-remembers-its-key': {
    description:
      'Over HTTP/2 a connection keeps the key of the last request that sent one: a later request on it without Authorization is authenticated with that key (as a server that authenticates a connection, not each request).',
    catches: ['TENANT-H2-COALESCED-CONNECTION-ISOLATED'],
    steps: () => {
      const keyOfConnection = new WeakMap<object, string>();
      return {
        authorizationOf: (req) => {
          const presented = CORRECT.authorizationOf(req);
          if (!overHttp2(req)) return presented;
          const connection = (req as unknown as Http2ServerRequest).stream.session as object;
          if (presented.kind === 'bearer') keyOfConnection.set(connection, presented.token);
          const remembered = keyOfConnection.get(connection);
          return presented.kind === 'missing' && remembered !== undefined
            ? parseAuthorization([`Bearer ${remembered}`])
            : presented;
        },
      };
    },
  },
  'session-cookie-authenticates': {
    description:
      'A served answer sets a session cookie (sid) for the key that was served; a later request that carries it without Authorization is authenticated with that key, as an app that keeps a session beside the API key does.',
    catches: ['AUTH-COOKIE-NOT-CREDENTIAL'],
    steps: () => {
      const keyOfSession = new Map<string, string>();
      return {
        authorizationOf: (req) => {
          const presented = CORRECT.authorizationOf(req);
          const session = /(?:^|;\s*)sid=([^;]+)/.exec(fieldLines(req, 'cookie').join('; '))?.[1];
          const key = session === undefined ? undefined : keyOfSession.get(session);
          return presented.kind === 'missing' && key !== undefined
            ? parseAuthorization([`Bearer ${key}`])
            : presented;
        },
        writeResponse: (res, response, transport) => {
          const presented = CORRECT.authorizationOf(res.req);
          if (response.status !== 200 || presented.kind !== 'bearer')
            return CORRECT.writeResponse(res, response, transport);
          const session = randomUUID();
          keyOfSession.set(session, presented.token);
          const cookie = `sid=${session}; Path=/; Secure; HttpOnly`;
          editingHeaders((headers) => ({ ...headers, 'Set-Cookie': cookie }))(res, response, transport);
        },
      };
    },
  },
  'missing-header-answered-invalid-key': {
    description:
      'A request without Authorization gets invalid_api_key instead of missing_authorization_header.',
    catches: ['AUTH-MISSING-HEADER'],
    alsoFails: {
      'AUTH-URL-CREDENTIALS-IGNORED':
        'A key in the URL leaves the request without a header: invalid_api_key too.',
    },
    steps: () => ({
      writeResponse: changingAnswers('missing_authorization_header', apiError('invalid_api_key')),
    }),
  },
  'keyless-served-to-other-user-agents': {
    description: `A cloaking front: a GET of /v1/customers without Authorization is answered 200 with the host tenant's customers unless its User-Agent is \`${CLOAKED_FOR}\`, the one the suite used to announce itself with (as \`curl\` without a key gets them).`,
    catches: ['AUTH-MISSING-HEADER'],
    alsoFails: {
      'AUTH-MISSING-HEADER-401': 'Its request without Authorization gets 200, not 401.',
      'AUTH-URL-CREDENTIALS-IGNORED':
        'A key in the URL leaves the request without Authorization: the front serves it the list.',
      'TENANT-H2-COALESCED-CONNECTION-ISOLATED':
        'Its request without a key, after a served one on the same connection, gets the list.',
      'TENANT-CACHED-ANSWER-NOT-SHARED':
        'The same URL right after a served request, without Authorization, gets the list.',
      'TENANT-CONDITIONAL-UNKNOWN-INDISTINGUISHABLE':
        "Without a key, the tenant's ETag gets 304 on its host (the list is served, then validated) and 200 on an unknown tenant's host (an empty list): the answers tell which tenants exist.",
      'TRANSPORT-HSTS': 'One of its requests has no Authorization and gets the list.',
      'ERROR-BODY-SHAPE': 'One of its requests has no Authorization and gets the list.',
      'ERROR-NO-STORE': 'One of its requests has no Authorization and gets the list.',
      'VERSION-PATH': 'One of its requests has no Authorization and gets the list.',
    },
    steps: keylessServedToOtherAgents,
  },
  'missing-header-answered-400': {
    description: 'A request without Authorization gets status 400 and no WWW-Authenticate challenge.',
    catches: ['AUTH-MISSING-HEADER-401'],
    steps: () => ({
      writeResponse: changingAnswers('missing_authorization_header', { status: 400, headers: {} }),
    }),
  },
  'no-www-authenticate': {
    description: 'Authentication errors carry no WWW-Authenticate challenge.',
    catches: ['AUTH-MISSING-HEADER-401', 'KEY-INVALID-401'],
    steps: () => ({
      writeResponse: editingHeaders(({ 'WWW-Authenticate': _challenge, ...headers }) => headers),
    }),
  },
  'any-scheme-accepted': {
    description: 'The key is taken from Authorization whatever the scheme (Token, Basic) or without one.',
    catches: ['AUTH-OTHER-SCHEME-REJECTED'],
    steps: () => ({
      authorizationOf: (req) => {
        const parsed = CORRECT.authorizationOf(req);
        if (parsed.kind !== 'not-bearer') return parsed;
        const value = fieldLines(req, 'authorization')[0] ?? '';
        return parseAuthorization([`Bearer ${value.replace(/^\S+ +/, '')}`]);
      },
    }),
  },
  'scheme-case-sensitive': {
    description: 'Only the exact spelling `Bearer` is accepted; `bearer` and `BEARER` are refused.',
    catches: ['AUTH-SCHEME-CASE-INSENSITIVE'],
    steps: () => ({
      authorizationOf: (req) => {
        const parsed = CORRECT.authorizationOf(req);
        const value = fieldLines(req, 'authorization')[0] ?? '';
        return parsed.kind === 'bearer' && !value.startsWith('Bearer ') ? { kind: 'not-bearer' } : parsed;
      },
    }),
  },
  'quotes-stripped': {
    description: 'Quotes around the key (`Bearer "KEY"`, `Bearer \'KEY\'`) are removed before the lookup.',
    catches: ['AUTH-QUOTED-KEY-REJECTED'],
    steps: () => ({
      authorizationOf: (req) =>
        parseAuthorization(
          fieldLines(req, 'authorization').map((value) => value.replace(/^(\S+ +)(["'])(.*)\2$/, '$1$3')),
        ),
    }),
  },
  'lenient-bearer-syntax': {
    description:
      'A tab after Bearer, extra parameters and a second token are tolerated: the first key-like word counts.',
    catches: ['AUTH-BEARER-SYNTAX-REJECTED'],
    steps: () => ({
      authorizationOf: (req) => {
        const parsed = CORRECT.authorizationOf(req);
        if (parsed.kind !== 'malformed') return parsed;
        const token = /^\S+\s+([A-Za-z0-9\-._~+/]+=*)/.exec(fieldLines(req, 'authorization')[0] ?? '')?.[1];
        return token ? { kind: 'bearer', token } : parsed;
      },
    }),
  },
  'bearer-token-spaces-removed': {
    description:
      'The spaces inside a Bearer token are removed before the lookup: `Bearer AB CD` is read as the key ABCD.',
    catches: ['AUTH-MALFORMED-BEARER-REJECTED'],
    steps: () => ({
      authorizationOf: (req) => {
        const parsed = CORRECT.authorizationOf(req);
        if (parsed.kind !== 'malformed') return parsed;
        const rest = /^Bearer (.+)$/i.exec(fieldLines(req, 'authorization')[0] ?? '')?.[1];
        const token = rest?.replace(/ +/g, '');
        return token && /^[A-Za-z0-9\-._~+/]+=*$/.test(token) ? { kind: 'bearer', token } : parsed;
      },
    }),
  },
  'second-authorization-header-used': {
    description: 'Of two Authorization headers the last one counts, instead of the request being rejected.',
    catches: ['AUTH-DUPLICATE-HEADER-REJECTED'],
    alsoFails: {
      'AUTH-H2-DUPLICATE-AUTHORIZATION-REJECTED':
        'Over HTTP/2 too, the last of two authorization fields counts.',
    },
    steps: () => ({
      authorizationOf: (req) => parseAuthorization(fieldLines(req, 'authorization').slice(-1)),
    }),
  },
  'key-accepted-from-url': {
    description: `Without an Authorization header, a key in ?${URL_KEY_PARAMETERS.join('=, ?')}= authenticates.`,
    catches: ['AUTH-URL-CREDENTIALS-IGNORED'],
    steps: () => ({
      authorizationOf: (req) => {
        const parsed = CORRECT.authorizationOf(req);
        if (parsed.kind !== 'missing') return parsed;
        const query = new URL(req.url ?? '/', ANY_ORIGIN).searchParams;
        const token = URL_KEY_PARAMETERS.map((name) => query.get(name)).find((value) => value);
        return token ? { kind: 'bearer', token } : parsed;
      },
    }),
  },
} satisfies Record<string, Fault>;
