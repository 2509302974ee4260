// The replaceable steps of the whole reference server, in one object: the API's (a request's
// address and each step of its path, api/steps.ts), how an answer of the API is written, what plain
// HTTP answers and which certificate is served. The server runs CORRECT_STEPS; a caller may replace
// any of them (`ReferenceServerOptions.steps`), which is how the suite's self-test (mutation/) builds
// its faulty variants. They sit above the API and the listeners, so that neither needs the other.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { apiError, type ApiResponse } from '../http/errors.ts';
import { writeApiResponse, type Transport } from '../http/response-writer.ts';
import { ensureCertificates } from '../listeners/certificates.ts';
import type { ApiSteps, PipelineContext } from '../api/request-pipeline.ts';
import { CORRECT_API_STEPS } from '../api/steps.ts';

export interface ServerSteps extends ApiSteps {
  /** Writes an answer of the HTTPS API. */
  writeResponse(res: ServerResponse, response: ApiResponse, transport: Transport): void;
  /** What the plain-HTTP listener answers (spec §5 Scheme 4: plain HTTP is rejected). */
  plainHttpAnswer(req: IncomingMessage, context: PipelineContext): ApiResponse;
  /** The CA and the leaf certificate the HTTPS listener serves. */
  certificates: typeof ensureCertificates;
}

export const CORRECT_STEPS: ServerSteps = {
  ...CORRECT_API_STEPS,
  writeResponse: writeApiResponse,
  plainHttpAnswer: () => apiError('https_required'),
  certificates: ensureCertificates,
};
