// Transport (spec §5 Scheme 4): the faults that break these rules (see ../fault.ts).
import type { IncomingMessage } from 'node:http';
import type { ApiResponse } from '../../reference-server/http/errors.ts';
import { handleApiRequest, type PipelineContext } from '../../reference-server/api/request-pipeline.ts';
import { requestFacts } from '../../reference-server/addressing/address.ts';
import { hostnameOf } from '../../reference-server/http/hosts.ts';
import { CORRECT, editingHeaders, headerValue, type Fault } from '../fault.ts';
import {
  emptySettings,
  frame,
  FRAME_FLAG,
  FRAME_TYPE,
  headerBlock,
} from '../../conformance/requests/h2-frames.ts';

const OTHER_DOMAIN = 'wrong-domain.test';

/** The plain-HTTP request run through the API's pipeline, as the HTTPS listener runs it. */
function servedAsApi(req: IncomingMessage, context: PipelineContext): ApiResponse {
  // A plain connection has no SNI to compare with the host.
  const plain = { ...context, steps: { ...context.steps, sniMatches: () => true } };
  return handleApiRequest(req, plain, requestFacts(req, plain));
}

/**
 * Switches a request asking `Upgrade: h2c` to HTTP/2 (101), then answers it on stream 1 with the
 * correct 403 over HTTP/2, as Apache with h2c enabled on the plain port does; the connection is
 * the switch's from then on, so the listener's own answer to the request goes nowhere.
 */
function switchedToH2c(req: IncomingMessage, answer: ApiResponse): void {
  const body = Buffer.from(JSON.stringify(answer.body));
  const block = headerBlock([
    [':status', String(answer.status)],
    ['content-type', 'application/json'],
    ['cache-control', 'no-store'],
  ]);
  const goaway = Buffer.alloc(8);
  goaway.writeUInt32BE(1, 0);
  req.socket.end(
    Buffer.concat([
      Buffer.from('HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\nConnection: Upgrade\r\n\r\n'),
      emptySettings(),
      frame(FRAME_TYPE.HEADERS, FRAME_FLAG.END_HEADERS, 1, block),
      frame(FRAME_TYPE.DATA, FRAME_FLAG.END_STREAM, 1, body),
      frame(FRAME_TYPE.GOAWAY, 0, 0, goaway),
    ]),
  );
}

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
    alsoFails: {
      'TRANSPORT-PLAIN-HTTP-FORWARDED-PROTO-REJECTED':
        'A valid key is served over plain HTTP with or without a header saying https.',
      'TRANSPORT-PLAIN-HTTP-H2C-REJECTED':
        'A valid key that asks Upgrade: h2c is served over plain HTTP too.',
    },
    steps: () => ({ plainHttpAnswer: servedAsApi }),
  },
  'h2c-upgrade-served': {
    description:
      'The plain-HTTP listener serves a request that asks Upgrade: h2c, as a server able to switch to HTTP/2 without TLS answers it: with a valid key, the data.',
    catches: ['TRANSPORT-PLAIN-HTTP-H2C-REJECTED'],
    steps: () => ({
      plainHttpAnswer: (req, context) =>
        /\bh2c\b/i.test(headerValue(req, 'upgrade') ?? '')
          ? servedAsApi(req, context)
          : CORRECT.plainHttpAnswer(req, context),
    }),
  },
  'h2c-upgrade-switched': {
    description:
      'The plain-HTTP listener switches a request asking Upgrade: h2c to HTTP/2 (101 Switching Protocols) and answers it there with the same 403 https_required: h2c spoken on the plain port, nothing served.',
    catches: ['TRANSPORT-PLAIN-HTTP-H2C-NOT-SWITCHED'],
    steps: () => ({
      plainHttpAnswer: (req, context) => {
        const answer = CORRECT.plainHttpAnswer(req, context);
        if (/\bh2c\b/i.test(headerValue(req, 'upgrade') ?? '')) switchedToH2c(req, answer);
        return answer;
      },
    }),
  },
  'plain-http-trusts-forwarded-proto': {
    description:
      'The plain-HTTP listener trusts X-Forwarded-Proto, as an app written for a TLS-terminating proxy does: with X-Forwarded-Proto: https it runs the API.',
    catches: ['TRANSPORT-PLAIN-HTTP-FORWARDED-PROTO-REJECTED'],
    steps: () => ({
      plainHttpAnswer: (req, context) =>
        headerValue(req, 'x-forwarded-proto')?.toLowerCase() === 'https'
          ? servedAsApi(req, context)
          : CORRECT.plainHttpAnswer(req, context),
    }),
  },
  'plain-http-answered-200': {
    description: 'Plain HTTP gets the https_required error body, but with status 200.',
    catches: ['TRANSPORT-PLAIN-HTTP-REJECTED'],
    alsoFails: {
      'TRANSPORT-PLAIN-HTTP-KEY-REJECTED': 'A request with a key gets the same 200 as one without.',
      'TRANSPORT-PLAIN-HTTP-FORWARDED-PROTO-REJECTED':
        'A request with a key and a header saying https gets that 200 too.',
      'TRANSPORT-PLAIN-HTTP-H2C-REJECTED': 'A request asking Upgrade: h2c gets that 200 too.',
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
      'TRANSPORT-PLAIN-HTTP-FORWARDED-PROTO-REJECTED':
        'A request with a key and a header saying https is redirected too.',
      'TRANSPORT-PLAIN-HTTP-H2C-REJECTED': 'A request asking Upgrade: h2c is redirected too.',
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
