// A JSON object may name a member twice, and JSON.parse then keeps the last one silently: a
// statement with "verdict" twice reads as one verdict to this kit and as the other to a reader that
// keeps the first. verify refuses such a file rather than pick one (RFC 8259 §4: names SHOULD be
// unique; I-JSON, RFC 7493, requires it). This walks text JSON.parse has already accepted.

/** How deep a bundle's JSON may nest: far past any report, well within the call stack. */
export const MAX_JSON_DEPTH = 256;

/** JSON nested deeper than MAX_JSON_DEPTH: no bundle's file is, and walking it would exhaust the stack. */
export class TooDeepError extends Error {}

/**
 * The paths of members named twice in one object (`$.predicate.verdict`), in order; [] when none.
 * Throws TooDeepError for JSON nested deeper than MAX_JSON_DEPTH.
 */
export function duplicateKeys(text: string): string[] {
  const found: string[] = [];
  let at = 0;
  let depth = 0;
  const skipSpace = (): void => {
    while (at < text.length && ' \t\n\r'.includes(text[at] ?? '')) at += 1;
  };
  const readString = (): string => {
    const start = at;
    at += 1; // the opening quote
    while (text[at] !== '"') at += text[at] === '\\' ? 2 : 1;
    at += 1;
    return JSON.parse(text.slice(start, at)) as string;
  };
  const readValue = (path: string): void => {
    skipSpace();
    const char = text[at];
    if ((char === '{' || char === '[') && ++depth > MAX_JSON_DEPTH)
      throw new TooDeepError(`nested more than ${MAX_JSON_DEPTH} levels deep (at ${path})`);
    if (char === '{') {
      at += 1;
      const names = new Set<string>();
      skipSpace();
      if (text[at] === '}') {
        at += 1;
        depth -= 1;
        return;
      }
      for (;;) {
        skipSpace();
        const name = readString();
        const member = `${path}.${name}`;
        if (names.has(name)) found.push(member);
        names.add(name);
        skipSpace();
        at += 1; // the colon
        readValue(member);
        skipSpace();
        if (text[at++] === '}') {
          depth -= 1;
          return;
        }
      }
    }
    if (char === '[') {
      at += 1;
      skipSpace();
      if (text[at] === ']') {
        at += 1;
        depth -= 1;
        return;
      }
      for (let index = 0; ; index += 1) {
        readValue(`${path}[${index}]`);
        skipSpace();
        if (text[at++] === ']') {
          depth -= 1;
          return;
        }
      }
    }
    if (char === '"') {
      readString();
      return;
    }
    // A number, true, false or null: up to the next delimiter.
    while (at < text.length && !',]} \t\n\r'.includes(text[at] ?? '')) at += 1;
  };
  readValue('$');
  return found;
}

/**
 * A JSON file that names a member twice in one object: which one a reader keeps is the reader's
 * choice, so the file says two things. Refused, naming the first such member.
 */
export function namesTwice(name: string, bytes: Buffer, problems: string[]): boolean {
  let twice: string[];
  try {
    twice = duplicateKeys(bytes.toString('utf8'));
  } catch (error) {
    if (!(error instanceof TooDeepError)) throw error;
    problems.push(`${name} is ${error.message}: no bundle's file is (refused).`);
    return true;
  }
  if (twice.length === 0) return false;
  problems.push(
    `${name} names ${twice.join(', ')} twice in one object: a reader may keep either value (refused).`,
  );
  return true;
}

/**
 * A bundle's JSON file parsed, once it is known to say one thing: undefined, with the problem, when
 * it is not JSON or names a member twice.
 */
export function parsedOnce(name: string, bytes: Buffer, problems: string[]): { value: unknown } | undefined {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    problems.push(`${name} is not JSON.`);
    return undefined;
  }
  return namesTwice(name, bytes, problems) ? undefined : { value };
}
