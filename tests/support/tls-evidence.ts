// A host's TLS evidence as the preflight records it (report `tls[]`), made up for tests that
// build reports in process: a fixed certificate of api.acme.example offering `protocols` by ALPN.
import type { TlsEvidence } from '../../schemas/generated/conformance-report.ts';

export function tlsEvidence(protocols: string[], host = 'api.acme.example:443'): TlsEvidence {
  return {
    field: 'baseUrl',
    host,
    fingerprint256: Array.from({ length: 32 }, () => 'AB').join(':'),
    subject: 'CN=api.acme.example',
    issuer: 'CN=Acme Issuing CA',
    validFrom: '2026-01-01T00:00:00.000Z',
    validTo: '2027-01-01T00:00:00.000Z',
    alpn: { offered: ['http/1.1'], agreed: 'http/1.1' },
    protocols,
  };
}
