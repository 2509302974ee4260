// What the server reads of a request target (`req.url`): the API pipeline and the panel alike.

/** The path of a request target, without its query or fragment (which never carry credentials that count). */
export function pathOf(target: string): string {
  const query = target.indexOf('?');
  const fragment = target.indexOf('#');
  const end = query === -1 ? fragment : fragment === -1 ? query : Math.min(query, fragment);
  return end === -1 ? target : target.slice(0, end);
}
