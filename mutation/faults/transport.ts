// Transport (spec §5 Scheme 4): the faults that break these rules (see ../fault.ts).
import { handleApiRequest } from '../../reference-server/api/request-pipeline.ts';
import { requestHostname } from '../../reference-server/http/field-lines.ts';
import { hostnameOf } from '../../reference-server/http/hosts.ts';
import { CORRECT, editingHeaders, type Fault } from '../fault.ts';

const OTHER_DOMAIN = 'wrong-domain.test';

export const TRANSPORT_FAULTS = {
  'certificate-for-another-domain': {
    description: `The HTTPS listener serves a leaf certificate for *.api.${OTHER_DOMAIN}, signed by the right CA.`,
    catches: ['TRANSPORT-HTTPS-CERT'],
    stopsPreflightAt: 'TLS',
    steps: () => ({
      certificates: (certDir) => CORRECT.certificates(certDir, OTHER_DOMAIN),
    }),
  },
  'plain-http-served': {
    description: 'The plain-HTTP listener runs the API like the HTTPS one: a valid key is served over HTTP.',
    catches: ['TRANSPORT-PLAIN-HTTP-KEY-REJECTED'],
    steps: () => ({
      plainHttpAnswer: (req, context) =>
        // A plain connection has no SNI to compare with the host.
        handleApiRequest(
          req,
          requestHostname(req),
          { ...context, steps: { ...context.steps, sniMatches: () => true } },
          {},
        ),
    }),
  },
  'plain-http-answered-200': {
    description: 'Plain HTTP gets the https_required error body, but with status 200.',
    catches: ['TRANSPORT-PLAIN-HTTP-REJECTED'],
    alsoFails: {
      'TRANSPORT-PLAIN-HTTP-KEY-REJECTED': 'A request with a key gets the same 200 as one without.',
    },
    steps: () => ({
      plainHttpAnswer: (req, context) => ({ ...CORRECT.plainHttpAnswer(req, context), status: 200 }),
    }),
  },
  'plain-http-redirected': {
    description: 'Plain HTTP is redirected (301) to the same address over HTTPS.',
    catches: ['TRANSPORT-NO-REDIRECT'],
    alsoFails: {
      'TRANSPORT-PLAIN-HTTP-REJECTED': 'A redirect is not a rejection (refused, reset or an error status).',
      'TRANSPORT-PLAIN-HTTP-KEY-REJECTED':
        'A request with a key is redirected too, which is not a rejection.',
    },
    steps: () => ({
      plainHttpAnswer: (req, context) => ({
        ...CORRECT.plainHttpAnswer(req, context),
        status: 301,
        headers: { Location: `https://${hostnameOf(req.headers.host ?? '')}${req.url ?? '/'}` },
      }),
    }),
  },
  'hsts-disabled': {
    description: 'HTTPS answers carry Strict-Transport-Security: max-age=0.',
    catches: ['TRANSPORT-HSTS'],
    steps: () => ({
      writeResponse: editingHeaders((headers) => ({ ...headers, 'Strict-Transport-Security': 'max-age=0' })),
    }),
  },
} satisfies Record<string, Fault>;
