// Deliberately faulty clients, a few lines each, and the one client rule each must be caught by.
// Each sends its own User-Agent, so that the report tells them apart; each uses a Read Only key
// (the least a reader needs) unless its fault is the key itself.
import type { ClientRuleId } from '../../../conformance/catalog/client-rules.ts';
import { hostOf, secretOf, send, type TestServer } from '../../support/reference-client.ts';

export interface FaultyClient {
  userAgent: string;
  /** The rules the report must flag for this client, and no other. */
  caughtBy: readonly ClientRuleId[];
  run(target: TestServer): Promise<unknown>;
}

const READ_ONLY = 'key_acme_prod_read';
const JSON_READ: readonly (readonly [string, string])[] = [['Accept', 'application/json']];

function headers(userAgent: string, authorization: string, ...more: (readonly [string, string])[]) {
  return [['User-Agent', userAgent], ['Authorization', authorization], ...JSON_READ, ...more] as const;
}

/** Tenant id header names of every length the journal's header scan treats apart (spec §5 Tenant identification 3). */
const TENANT_HEADER_SPELLINGS = [
  'X-Organization-Id',
  'X-Company-Id',
  'Company-Id',
  'Company_Id',
  'X_Organization_Id',
];

/** A client sending a tenant id header spelt `name`, over HTTP/1.1 and over HTTP/2. */
function tenantHeaderClients(name: string): FaultyClient[] {
  return [false, true].map((http2) => {
    const userAgent = `faulty-header-${name}${http2 ? '-h2' : ''}`;
    return {
      userAgent,
      caughtBy: ['CLIENT-NO-TENANT-FIELDS'],
      run: (t: TestServer) =>
        send(t, {
          http2,
          headers: headers(userAgent, `Bearer ${secretOf(t.fixtures, READ_ONLY)}`, [name, 'acme']),
        }),
    };
  });
}

export const FAULTY_CLIENTS: readonly FaultyClient[] = [
  ...TENANT_HEADER_SPELLINGS.flatMap(tenantHeaderClients),
  {
    userAgent: 'faulty-quoted-key',
    caughtBy: ['CLIENT-AUTH-NO-QUOTES'],
    run: (t) =>
      send(t, { headers: headers('faulty-quoted-key', `Bearer "${secretOf(t.fixtures, READ_ONLY)}"`) }),
  },
  {
    userAgent: 'faulty-key-in-query',
    caughtBy: ['CLIENT-KEY-NOT-IN-URL'],
    run: (t) => {
      const key = secretOf(t.fixtures, READ_ONLY);
      return send(t, {
        path: `/v1/customers?api_key=${key}`,
        headers: headers('faulty-key-in-query', `Bearer ${key}`),
      });
    },
  },
  {
    userAgent: 'faulty-tenant-header',
    caughtBy: ['CLIENT-NO-TENANT-FIELDS'],
    run: (t) =>
      send(t, {
        headers: headers('faulty-tenant-header', `Bearer ${secretOf(t.fixtures, READ_ONLY)}`, [
          'X-Tenant-Id',
          'acme',
        ]),
      }),
  },
  {
    userAgent: 'faulty-tenant-in-body',
    caughtBy: ['CLIENT-NO-TENANT-FIELDS'],
    run: (t) =>
      send(t, {
        method: 'POST',
        body: JSON.stringify({ name: 'Jane', tenant_id: 'acme' }),
        headers: headers('faulty-tenant-in-body', `Bearer ${secretOf(t.fixtures, READ_ONLY)}`, [
          'Content-Type',
          'application/json',
        ]),
      }),
  },
  // HTTP/2 clients are judged by the same rules: the journal records their requests as any other.
  {
    userAgent: 'faulty-h2-key-in-query',
    caughtBy: ['CLIENT-KEY-NOT-IN-URL'],
    run: (t) => {
      const key = secretOf(t.fixtures, READ_ONLY);
      return send(t, {
        http2: true,
        path: `/v1/customers?api_key=${key}`,
        headers: headers('faulty-h2-key-in-query', `Bearer ${key}`),
      });
    },
  },
  {
    userAgent: 'faulty-h2-tenant-in-body',
    caughtBy: ['CLIENT-NO-TENANT-FIELDS'],
    run: (t) =>
      send(t, {
        http2: true,
        method: 'POST',
        body: JSON.stringify({ name: 'Jane', tenant_id: 'acme' }),
        headers: headers('faulty-h2-tenant-in-body', `Bearer ${secretOf(t.fixtures, READ_ONLY)}`, [
          'Content-Type',
          'application/json',
        ]),
      }),
  },
  {
    userAgent: 'faulty-plain-http',
    caughtBy: ['CLIENT-HTTPS-ONLY'],
    run: (t) =>
      send(t, {
        plain: true,
        headers: headers('faulty-plain-http', `Bearer ${secretOf(t.fixtures, READ_ONLY)}`),
      }),
  },
  {
    userAgent: 'faulty-no-sni',
    caughtBy: ['CLIENT-TLS-SNI'],
    // An empty servername sends no SNI; the certificate is still checked for the tenant host.
    run: (t) =>
      send(t, {
        servername: '',
        verifyHostname: hostOf('acme'),
        headers: headers('faulty-no-sni', `Bearer ${secretOf(t.fixtures, READ_ONLY)}`),
      }),
  },
  {
    userAgent: 'faulty-full-access-reader',
    caughtBy: ['CLIENT-LEAST-PRIVILEGE'],
    run: (t) =>
      send(t, {
        headers: headers('faulty-full-access-reader', `Bearer ${secretOf(t.fixtures, 'key_acme_prod_full')}`),
      }),
  },
  {
    userAgent: 'faulty-sandbox-key-on-production',
    caughtBy: ['CLIENT-KEY-ENVIRONMENT'],
    run: (t) =>
      send(t, {
        headers: headers(
          'faulty-sandbox-key-on-production',
          `Bearer ${secretOf(t.fixtures, 'key_acme_dev_read')}`,
        ),
      }),
  },
  {
    userAgent: 'faulty-revoked-key',
    caughtBy: ['CLIENT-KEY-NOT-REVOKED'],
    run: (t) =>
      send(t, {
        headers: headers('faulty-revoked-key', `Bearer ${secretOf(t.fixtures, 'key_acme_prod_revoked')}`),
      }),
  },
  {
    userAgent: 'faulty-basic-scheme',
    caughtBy: ['CLIENT-AUTH-BEARER'],
    run: (t) =>
      send(t, { headers: headers('faulty-basic-scheme', `Token ${secretOf(t.fixtures, READ_ONLY)}`) }),
  },
  {
    userAgent: 'faulty-no-accept',
    caughtBy: ['CLIENT-ACCEPT-JSON'],
    run: (t) =>
      send(t, {
        headers: [
          ['User-Agent', 'faulty-no-accept'],
          ['Authorization', `Bearer ${secretOf(t.fixtures, READ_ONLY)}`],
        ],
      }),
  },
  {
    userAgent: 'faulty-no-authorization',
    caughtBy: ['CLIENT-AUTH-HEADER'],
    run: (t) => send(t, { headers: [['User-Agent', 'faulty-no-authorization'], ...JSON_READ] }),
  },
  {
    userAgent: 'faulty-two-authorization-headers',
    caughtBy: ['CLIENT-AUTH-WELL-FORMED'],
    run: (t) => {
      const key = secretOf(t.fixtures, READ_ONLY);
      return send(t, {
        headers: headers('faulty-two-authorization-headers', `Bearer ${key}`, [
          'Authorization',
          `Bearer ${key}`,
        ]),
      });
    },
  },
  {
    // Two values of `authorization` joined into one field, as an HTTP/2 client may: one defect.
    userAgent: 'faulty-h2-folded-authorization',
    caughtBy: ['CLIENT-AUTH-WELL-FORMED'],
    run: (t) => {
      const key = secretOf(t.fixtures, READ_ONLY);
      return send(t, {
        http2: true,
        headers: headers('faulty-h2-folded-authorization', `Bearer ${key}, Bearer ${key}`),
      });
    },
  },
  {
    userAgent: 'faulty-h2-wrong-sni',
    caughtBy: ['CLIENT-TLS-SNI'],
    run: (t) =>
      send(t, {
        http2: true,
        // The certificate covers every tenant host: the connection is opened for globex.
        servername: hostOf('globex'),
        headers: headers('faulty-h2-wrong-sni', `Bearer ${secretOf(t.fixtures, READ_ONLY)}`),
      }),
  },
  {
    userAgent: 'faulty-ip-address-host',
    // A client that calls https://127.0.0.1:PORT/v1 sends no SNI either (none is sent for an IP).
    caughtBy: ['CLIENT-TENANT-HOST', 'CLIENT-TLS-SNI'],
    run: (t) =>
      send(t, {
        host: `127.0.0.1:${t.server.httpsPort}`,
        servername: '',
        verifyHostname: hostOf('acme'),
        headers: headers('faulty-ip-address-host', `Bearer ${secretOf(t.fixtures, READ_ONLY)}`),
      }),
  },
  {
    userAgent: 'faulty-text-body',
    caughtBy: ['CLIENT-CONTENT-TYPE-JSON'],
    run: (t) =>
      send(t, {
        method: 'POST',
        body: 'name=Jane',
        headers: headers('faulty-text-body', `Bearer ${secretOf(t.fixtures, READ_ONLY)}`, [
          'Content-Type',
          'application/x-www-form-urlencoded',
        ]),
      }),
  },
  {
    userAgent: 'faulty-other-tenant-key',
    caughtBy: ['CLIENT-KEY-KNOWN'],
    run: (t) =>
      send(t, {
        headers: headers('faulty-other-tenant-key', `Bearer ${secretOf(t.fixtures, 'key_globex_prod_read')}`),
      }),
  },
];
