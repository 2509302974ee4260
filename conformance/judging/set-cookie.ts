// The cookies an answer set (RFC 6265 §4.1), read from its Set-Cookie field as the clients join
// repeated fields: Playwright's request context with a line break, the raw client (and HTTP/2)
// with ", ". A comma also sits inside an Expires date ("Wed, 21 Oct 2015 …"), so a comma starts a
// new cookie only where a `name=` follows it.
export interface SetCookie {
  name: string;
  value: string;
}

const NEXT_COOKIE = /\n|,\s*(?=[!#$%&'*+\-.^_`|~0-9A-Za-z]+=)/;

export function cookiesSetBy(setCookie: string | undefined): SetCookie[] {
  if (setCookie === undefined) return [];
  return setCookie.split(NEXT_COOKIE).flatMap((field) => {
    const pair = field.split(';', 1)[0]?.trim() ?? '';
    const equals = pair.indexOf('=');
    if (equals <= 0) return [];
    return [{ name: pair.slice(0, equals).trim(), value: pair.slice(equals + 1).trim() }];
  });
}

/** The Cookie field a client sends back for these cookies (RFC 6265 §5.4). */
export function cookieField(cookies: readonly SetCookie[]): string {
  return cookies.map(({ name, value }) => `${name}=${value}`).join('; ');
}
