// The error answers of the OpenAPI document, built from the server's error catalog
// (reference-server/http/errors.ts): each status's response lists the codes it carries, with the
// catalog's message as an example of each and the headers the catalog adds (the Bearer challenge,
// `Allow`), so that the document cannot say another thing than the server sends.
import { STATUS_CODES } from 'node:http';
import {
  ERRORS,
  apiError,
  errorBody,
  errorCodesOf,
  type ApiErrorCode,
} from '../../reference-server/http/errors.ts';
import { MAX_URL_LENGTH } from '../../reference-server/api/request-pipeline.ts';
import { DEFAULT_LIMITS } from '../../reference-server/server.ts';

/**
 * In the catalog but not in the document, and why. Every other code is answered to some request
 * the document describes; `documentedCodes` fails when a new code is in neither.
 */
export const UNDOCUMENTED_CODES: Partial<Record<ApiErrorCode, string>> = {
  internal_error: 'a defect of the server, never the answer a request is meant to get',
};

const seconds = (ms: number): string => `${ms / 1000} s`;
const kib = (bytes: number): string => `${bytes / 1024} KiB`;

/** When each documented code is answered (the README's status table, in the document's words). */
export const WHEN: Record<Exclude<ApiErrorCode, 'internal_error'>, string> = {
  bad_request: 'an unparsable request, or one without a `Host` header or with more than one',
  request_timeout: `the request headers were not received within ${seconds(DEFAULT_LIMITS.headersTimeoutMs)}, or the whole request within ${seconds(DEFAULT_LIMITS.requestTimeoutMs)}`,
  uri_too_long: `a request target longer than ${kib(MAX_URL_LENGTH)}`,
  request_header_fields_too_large: `a request line and headers larger than ${kib(DEFAULT_LIMITS.maxHeaderBytes)}`,
  misdirected_request:
    'a host that matches no tenant host pattern, a TLS connection without SNI, or an SNI that names another host than `Host`',
  missing_authorization_header:
    'no `Authorization` header, an empty one, another scheme (`Basic …`), a bare key, or a key only in the URL',
  invalid_api_key:
    "a malformed Bearer value (quotes, a tab, extra parameters), an unknown, altered or revoked key, another tenant's or the other environment's key, or two `Authorization` headers",
  insufficient_permissions: 'a valid key without the permission the operation needs',
  https_required: 'any request sent over plain HTTP (`http://`); it is refused, never redirected',
  not_found: 'a valid key, and a path that is not exactly the resource path (e.g. a trailing slash)',
  method_not_allowed: 'a valid key, and a method the resource does not answer',
};

export function documentedCodes(): ApiErrorCode[] {
  const codes = errorCodesOf('api');
  for (const code of codes) {
    if (!(code in WHEN) && !(code in UNDOCUMENTED_CODES)) {
      throw new Error(
        `Error code ${code} of reference-server/http/errors.ts is neither documented nor listed as undocumented in scripts/openapi/error-responses.ts.`,
      );
    }
  }
  return codes.filter((code) => code in WHEN);
}

/** A response of the document and the name it has in `components.responses`. */
export interface NamedResponse {
  name: string;
  status: number;
  response: Record<string, unknown>;
}

/**
 * One response per status for the given codes, e.g. 401 → `Unauthorized` with
 * `missing_authorization_header` and `invalid_api_key`.
 */
export function errorResponses(codes: readonly ApiErrorCode[]): NamedResponse[] {
  const byStatus = new Map<number, ApiErrorCode[]>();
  for (const code of codes) {
    const status = ERRORS[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return [...byStatus.entries()]
    .sort(([a], [b]) => a - b)
    .map(([status, sameStatus]) => ({
      name: sameStatus.length === 1 ? pascalCase(sameStatus[0] as string) : pascalCase(reason(status)),
      status,
      response: errorResponse(status, sameStatus),
    }));
}

function errorResponse(status: number, codes: readonly ApiErrorCode[]): Record<string, unknown> {
  const when = codes.map((code) => `\`${code}\`: ${whenOf(code)}.`).join('\n\n');
  return {
    description: `${reason(status)}.\n\n${when}`,
    headers: { ...commonHeaders(codes), ...catalogHeaders(codes) },
    content: {
      'application/json': {
        schema: {
          allOf: [
            { $ref: '#/components/schemas/ErrorBody' },
            {
              type: 'object',
              properties: {
                error: {
                  type: 'object',
                  properties: { code: codes.length === 1 ? { const: codes[0] } : { enum: codes } },
                },
              },
            },
          ],
        },
        examples: Object.fromEntries(
          codes.map((code) => [code, { summary: capitalise(whenOf(code)), value: errorBody(code) }]),
        ),
      },
    },
  };
}

/** Headers of every answer of the API (reference-server/http/response-writer.ts), by name. */
export const HEADER_COMPONENTS: Record<string, Record<string, unknown>> = {
  'Cache-Control': {
    description: 'No answer is stored by a cache.',
    required: true,
    schema: { const: 'no-store' },
  },
  'X-Content-Type-Options': { required: true, schema: { const: 'nosniff' } },
  'Strict-Transport-Security': {
    description: 'HSTS, on every HTTPS answer.',
    required: true,
    schema: { type: 'string', pattern: '^max-age=[0-9]+' },
  },
};

/**
 * The common headers of an answer with one of `codes` (none: a success). The plain-HTTP refusal
 * (`https_required`) has no HSTS (RFC 6797 §7.2), so a response that may be it does not require it.
 */
export function commonHeaders(codes: readonly ApiErrorCode[] = []): Record<string, unknown> {
  const ref = (name: string): Record<string, string> => ({ $ref: `#/components/headers/${name}` });
  const headers: Record<string, unknown> = {
    'Cache-Control': ref('Cache-Control'),
    'X-Content-Type-Options': ref('X-Content-Type-Options'),
  };
  const plainHttp = codes.filter((code) => code === 'https_required').length;
  if (plainHttp === 0) headers['Strict-Transport-Security'] = ref('Strict-Transport-Security');
  else if (plainHttp < codes.length) {
    headers['Strict-Transport-Security'] = {
      ...HEADER_COMPONENTS['Strict-Transport-Security'],
      description: 'HSTS, on every HTTPS answer; never on the plain-HTTP refusal (`https_required`).',
      required: false,
    };
  }
  return headers;
}

/** The headers the catalog adds to some of `codes`: required where every code has the header. */
function catalogHeaders(codes: readonly ApiErrorCode[]): Record<string, unknown> {
  const names = new Set(codes.flatMap((code) => Object.keys(apiError(code).headers)));
  const headers: Record<string, unknown> = {};
  for (const name of [...names].sort()) {
    const valueOf = (code: ApiErrorCode): string | undefined => apiError(code).headers[name];
    const values = [...new Set(codes.map(valueOf).filter((value) => value !== undefined))];
    const withHeader = codes.filter((code) => valueOf(code) !== undefined);
    headers[name] = {
      description: withHeader.map((code) => `With \`${code}\`: \`${valueOf(code)}\`.`).join(' '),
      required: withHeader.length === codes.length,
      schema: values.length === 1 ? { const: values[0] } : { enum: values },
    };
  }
  return headers;
}

function whenOf(code: ApiErrorCode): string {
  const when = (WHEN as Partial<Record<ApiErrorCode, string>>)[code];
  if (when === undefined) throw new Error(`Error code ${code} is not documented.`);
  return when;
}

function reason(status: number): string {
  return STATUS_CODES[status] ?? `Status ${status}`;
}

function pascalCase(words: string): string {
  return words
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => capitalise(word.toLowerCase()))
    .join('');
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
