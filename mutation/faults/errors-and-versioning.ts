// Errors and versioning (spec §7, §9): the faults that break these rules (see ../fault.ts).
import { apiError, errorBody } from '../../reference-server/http/errors.ts';
import { ANY_ORIGIN, CORRECT, editingHeaders, rewritingAnswers, type Fault } from '../fault.ts';

export const ERRORS_AND_VERSIONING_FAULTS = {
  'error-body-extra-member': {
    description: 'Error bodies carry a second top-level member, `status`, beside `error`.',
    catches: ['ERROR-BODY-SHAPE'],
    steps: () => ({
      writeResponse: rewritingAnswers((response) =>
        response.errorCode
          ? { ...response, body: { ...errorBody(response.errorCode), status: response.status } }
          : response,
      ),
    }),
  },
  'error-body-text-plain': {
    description: 'Error bodies are sent as text/plain.',
    catches: ['ERROR-BODY-SHAPE'],
    steps: () => ({
      writeResponse: editingHeaders((headers, response) =>
        response.errorCode ? { ...headers, 'Content-Type': 'text/plain; charset=utf-8' } : headers,
      ),
    }),
  },
  'key-echoed-in-error': {
    description: 'Error messages repeat the Authorization header that was received.',
    catches: ['KEY-NOT-ECHOED'],
    alsoFails: {
      'TENANT-CROSS-KEY-INDISTINGUISHABLE':
        "The bodies for another tenant's key and an unknown key differ by the echoed key.",
    },
    steps: () => ({
      writeResponse: rewritingAnswers((response, req) => {
        const received = req.headers.authorization;
        if (!response.errorCode || received === undefined) return response;
        const body = errorBody(response.errorCode);
        body.error.message = `${body.error.message} Received: ${received}`;
        return { ...response, body };
      }),
    }),
  },
  'errors-cacheable': {
    // `private` keeps shared caches out: CACHE-SERVED-NOT-SHARED passes, only the advice fails.
    description: 'Answers carry Cache-Control: private, max-age=300 instead of no-store.',
    catches: ['ERROR-NO-STORE'],
    steps: () => ({
      writeResponse: editingHeaders((headers) => ({ ...headers, 'Cache-Control': 'private, max-age=300' })),
    }),
  },
  'served-answers-cacheable': {
    description:
      'Answers of 200 carry no Cache-Control (nor Vary): a shared cache may keep them and give them to other credentials.',
    catches: ['CACHE-SERVED-NOT-SHARED'],
    alsoFails: {
      'ERROR-NO-STORE': 'The answer to an authenticated request has no Cache-Control: no-store.',
    },
    steps: () => ({
      writeResponse: editingHeaders((headers, response) => {
        if (response.status !== 200) return headers;
        return Object.fromEntries(
          Object.entries(headers).filter(([name]) => name.toLowerCase() !== 'cache-control'),
        );
      }),
    }),
  },
  'unversioned-path': {
    description:
      'The API is served at /customers, without /v1. Its router runs after the host checks but before authentication, so /v1/… gets 404.',
    catches: ['VERSION-PATH'],
    knockOn: 'authenticated-path-not-found',
    steps: () => ({
      findRoute: (path) => CORRECT.findRoute(`/v1${path}`),
      writeResponse: rewritingAnswers((response, req) =>
        response.errorCode !== 'misdirected_request' &&
        new URL(req.url ?? '/', ANY_ORIGIN).pathname.startsWith('/v1/')
          ? apiError('not_found')
          : response,
      ),
    }),
  },
} satisfies Record<string, Fault>;
