// Reading a panel form: every change is a POST that must carry the expected CSRF token and, when
// the browser says where it comes from, come from this panel's own origin.
import type { IncomingMessage } from 'node:http';
import { mediaTypeOf, readBody } from '../http/read-body.ts';
import { hostLines } from '../http/field-lines.ts';
import { errorPage } from './page-layout.ts';
import { page, type PanelResponse } from './panel-response.ts';
import { csrfFailure } from './refusals.ts';
import { tokensMatch } from './sessions.ts';
import { frameOf, type Visit } from './visit.ts';

/** Forms are small; a larger body is refused before it is buffered. */
const MAX_FORM_BYTES = 8 * 1024;

/**
 * The form of a POST, once its origin and CSRF token are checked; or the response refusing it.
 * The token is the session's (a POST can never start a session), or what `tokenValid` accepts.
 */
export async function readForm(
  visit: Visit,
  tokenValid: (token: string | null) => boolean = (token) =>
    visit.session !== undefined && tokensMatch(visit.session.csrfToken, token),
): Promise<URLSearchParams | PanelResponse> {
  if (!sameOrigin(visit.req)) return csrfFailure(visit);
  if (mediaTypeOf(visit.req) !== 'application/x-www-form-urlencoded') {
    return page(
      415,
      errorPage(frameOf(visit), 'Unsupported form', 'Send the form as application/x-www-form-urlencoded.'),
    );
  }
  const body = await readBody(visit.req, MAX_FORM_BYTES);
  if (body.kind === 'too-large') {
    return page(
      413,
      errorPage(frameOf(visit), 'Form too large', 'The form is larger than this panel accepts.'),
      {
        Connection: 'close',
      },
    );
  }
  if (body.kind === 'aborted')
    return page(400, errorPage(frameOf(visit), 'Incomplete form', 'The form did not arrive whole.'));
  const form = new URLSearchParams(body.body.toString('utf8'));
  if (!tokenValid(form.get('csrf_token'))) return csrfFailure(visit);
  return form;
}

/** A change must come from this panel: a cross-site browser request is refused even with a token. */
function sameOrigin(req: IncomingMessage): boolean {
  const origin = req.headers.origin;
  // The request's host as its protocol names it: over HTTP/2 there is no Host field.
  if (origin !== undefined && origin !== `https://${hostLines(req)[0] ?? ''}`) return false;
  const site = req.headers['sec-fetch-site'];
  return site === undefined || site === 'same-origin' || site === 'none';
}
