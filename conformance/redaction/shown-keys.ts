// How reports show a request that carried a key: the key as the name of the environment variable
// it came from (`Bearer $STAGING_FULL_ACCESS_KEY`), and the forms the suite derives from it as
// shell expressions of that variable (`${STAGING_FULL_ACCESS_KEY%?}` for the key less its last
// character), so that a curl command copied from a report sends exactly what the suite sent,
// and no report ever holds the value. Whatever still resembles a key after that — an alteration
// no expression describes — is masked by the Redactor.
import { Redactor } from './secrets.ts';

export interface NamedKey {
  /** The environment variable, e.g. STAGING_FULL_ACCESS_KEY. */
  variable: string;
  value: string;
}

/**
 * Expressions hold no `"`, `\` or backquote, so that a curl command can put them inside double
 * quotes as they are (conformance/report/curl.ts). Keys are token68: unquoted, they stay one word.
 */
interface Form {
  text: string;
  /** Shell expression whose value is `text`. */
  expression: string;
  /** Set when the expression is the variable itself (`$NAME`), which may need braces. */
  variable?: string;
}

/** A piece of shown text: literal, or a shell expression naming a key. */
export type Segment = { literal: string } | { expression: string; variable?: string };

const IDENTIFIER_CHAR = /^[A-Za-z0-9_]/;

export class KeyNamer {
  readonly #forms: Form[];
  readonly #pattern: RegExp | undefined;
  readonly #redactor: Redactor;

  constructor(keys: readonly NamedKey[]) {
    const forms = new Map<string, Form>();
    for (const { variable, value } of keys) {
      if (value.length === 0) continue;
      for (const form of formsOf(value, variable)) if (!forms.has(form.text)) forms.set(form.text, form);
    }
    // The longest form wins where several start at one place (the key before its truncation).
    this.#forms = [...forms.values()].sort((a, b) => b.text.length - a.text.length);
    this.#pattern =
      this.#forms.length > 0
        ? new RegExp(this.#forms.map((form) => escapeRegExp(form.text)).join('|'), 'g')
        : undefined;
    this.#redactor = new Redactor(keys.map((key) => key.value));
  }

  segments(text: string): Segment[] {
    const segments: Segment[] = [];
    const literal = (piece: string): void => {
      if (piece !== '') segments.push({ literal: this.#redactor.redact(piece) });
    };
    let last = 0;
    for (const match of this.#pattern ? text.matchAll(this.#pattern) : []) {
      literal(text.slice(last, match.index));
      const form = this.#forms.find((candidate) => candidate.text === match[0]);
      if (form)
        segments.push({ expression: form.expression, ...(form.variable ? { variable: form.variable } : {}) });
      last = match.index + match[0].length;
    }
    literal(text.slice(last));
    return segments;
  }

  /** The text with every key shown as its variable (`$NAME`, `${NAME}…`), the rest redacted. */
  show(text: string): string {
    return joinSegments(this.segments(text));
  }
}

/** The segments as one string; `$NAME` becomes `${NAME}` where a name character follows. */
export function joinSegments(segments: readonly Segment[]): string {
  return segments
    .map((segment, index) => {
      if ('literal' in segment) return segment.literal;
      const next = segments[index + 1];
      const glued = next !== undefined && 'literal' in next && IDENTIFIER_CHAR.test(next.literal);
      return glued && segment.variable ? `\${${segment.variable}}` : segment.expression;
    })
    .join('');
}

/** Derived forms are sought only for keys long enough not to match ordinary text. */
const MIN_DERIVED_LENGTH = 12;

function formsOf(value: string, variable: string): Form[] {
  const plain: Form[] = [
    { text: value, expression: `$${variable}`, variable },
    { text: encodeURIComponent(value), expression: `$${variable}`, variable },
  ];
  if (value.length < MIN_DERIVED_LENGTH) return plain;
  const swapped = [...value]
    .map((char) => (char === char.toLowerCase() ? char.toUpperCase() : char.toLowerCase()))
    .join('');
  const forms: Form[] = [
    ...plain,
    {
      text: Buffer.from(value).toString('base64'),
      expression: `$(printf %s $${variable} | base64 | tr -d '[:space:]')`,
    },
    {
      text: Buffer.from(`${value}:`).toString('base64'),
      expression: `$(printf %s: $${variable} | base64 | tr -d '[:space:]')`,
    },
    { text: value.slice(0, -1), expression: `\${${variable}%?}` },
  ];
  if (swapped !== value)
    forms.push({ text: swapped, expression: `$(printf %s $${variable} | tr a-zA-Z A-Za-z)` });
  return forms;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The KeyNamer of a target: each of its keys under the variable it came from. */
export function keyNamerFor(target: {
  credentials: Partial<Record<string, string>>;
  credentialVariables: Partial<Record<string, string>>;
}): KeyNamer {
  return new KeyNamer(
    Object.entries(target.credentials).flatMap(([name, value]) =>
      value === undefined ? [] : [{ variable: target.credentialVariables[name] ?? name, value }],
    ),
  );
}
