// The panel's refusals that any route may give: a change without a valid CSRF token or from
// another origin, and a method the address does not accept.
import { errorPage } from './page-layout.ts';
import { page, type PanelResponse } from './panel-response.ts';
import { frameOf, type Visit } from './visit.ts';

export function csrfFailure(visit: Visit | undefined): PanelResponse {
  return page(
    403,
    errorPage(
      visit && frameOf(visit),
      'Request refused',
      'This form has expired or did not come from this panel. Go back, reload the page, and try again.',
    ),
  );
}

export function methodNotAllowed(visit: Visit | undefined, allow: string): PanelResponse {
  return page(
    405,
    errorPage(visit && frameOf(visit), 'Method not allowed', `This address accepts ${allow} only.`),
    {
      Allow: allow,
    },
  );
}
