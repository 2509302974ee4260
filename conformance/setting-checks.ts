// How a setting's text is checked, whichever way it came (a flag, a variable, a team's config):
// one set of words for what is allowed, so that a value out of bounds is refused the same way
// everywhere, naming the flag or variable, the value and what is allowed — never a default.
// Kept apart from the table of options (run-option-table.ts), which uses these checks row by row.

/** A setting given wrong: the runner prints the message and exits 2 (no stack trace). */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export type Profile = 'default' | 'strict';

export type Protocol = 'h1' | 'h2';

export const PROTOCOLS: readonly Protocol[] = ['h1', 'h2'];

/** `h1,h2` as given to --protocols; the reason when it names anything else. */
export function parseProtocols(text: string): { protocols: Protocol[] } | { error: string } {
  const names = text
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);
  const unknown = names.filter((name) => !(PROTOCOLS as readonly string[]).includes(name));
  if (names.length === 0 || unknown.length > 0)
    return { error: `name h1, h2 or both, separated by a comma (got "${text}")` };
  return { protocols: PROTOCOLS.filter((protocol) => names.includes(protocol)) };
}

/** How a number setting is bounded, and what its unit is called in a message. */
export interface NumberBounds {
  min: number;
  max: number;
  unit: string;
  integer?: boolean;
  /** The minimum itself is not allowed ("more than 0"). */
  aboveMin?: boolean;
}

function allowedNumbers(bounds: NumberBounds): string {
  const kind = bounds.integer ? 'a whole number' : 'a number';
  return bounds.aboveMin
    ? `give ${kind} of ${bounds.unit}, more than ${bounds.min} and at most ${bounds.max}`
    : `give ${kind} of ${bounds.unit} from ${bounds.min} to ${bounds.max}`;
}

/**
 * `text` as a number within `bounds`; a UsageError naming `named` (a flag such as `--max-rps`, a
 * variable, an option of a team's config) when it is not. `where` says where it was given
 * (` in the environment`), after the value.
 */
export function checkNumber(bounds: NumberBounds, text: string, named: string, where = ''): number {
  const number = Number(text);
  const valid =
    text.trim() !== '' &&
    Number.isFinite(number) &&
    (bounds.aboveMin ? number > bounds.min : number >= bounds.min) &&
    number <= bounds.max &&
    (!bounds.integer || Number.isInteger(number));
  if (!valid) throw new UsageError(`Invalid ${named} "${text}"${where}: ${allowedNumbers(bounds)}.`);
  return number;
}

/** `text` as a profile, or a UsageError naming `named`. */
export function checkProfile(text: string, named: string, where = ''): Profile {
  if (text !== 'default' && text !== 'strict')
    throw new UsageError(`Invalid ${named} "${text}"${where}: use default or strict.`);
  return text;
}

/** `text` as a list of protocols, or a UsageError naming `named`. */
export function checkProtocols(text: string, named: string, where = ''): Protocol[] {
  const parsed = parseProtocols(text);
  if ('error' in parsed) throw new UsageError(`Invalid ${named}${where}: ${parsed.error}.`);
  return parsed.protocols;
}

/** A switch variable's text: 1 (on) or 0 (off). */
export function checkSwitch(text: string, named: string, where = ''): boolean {
  if (text !== '1' && text !== '0')
    throw new UsageError(`Invalid ${named} "${text}"${where}: use 1 (on) or 0 (off).`);
  return text === '1';
}

/**
 * A User-Agent as given to --user-agent: a header field value of visible ASCII characters and
 * spaces (RFC 9110 §5.5, §10.1.5), 1 to 512 of them, not starting or ending with a space.
 */
export function checkUserAgent(text: string, named: string, where = ''): string {
  if (/^[\x21-\x7e](?:[\x20-\x7e]{0,510}[\x21-\x7e])?$/.test(text)) return text;
  throw new UsageError(
    `Invalid ${named} "${text.replace(/[^\x20-\x7e]/g, '?')}"${where}: give 1 to 512 visible ASCII characters and spaces (a header field value), such as "curl/8.5.0".`,
  );
}
