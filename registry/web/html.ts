// The pages' frame and the one escaping function every value passes through.
export function escapeHtml(value: unknown): string {
  return String(value)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** A tagged template whose values are escaped; a value made by `html` itself is kept as is. */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let text = strings[0] ?? '';
  values.forEach((value, index) => {
    const rendered = Array.isArray(value)
      ? value.map((item) => (item instanceof Html ? item.text : escapeHtml(item))).join('')
      : value instanceof Html
        ? value.text
        : value === undefined || value === null
          ? ''
          : escapeHtml(value);
    text += rendered + (strings[index + 1] ?? '');
  });
  return new Html(text);
}

const STYLE = `
  body { font: 15px/1.5 system-ui, sans-serif; margin: 0 auto; max-width: 1200px; padding: 1rem 2rem; color: #1b1f24; }
  header a { color: inherit; text-decoration: none; }
  table { border-collapse: collapse; margin: 1rem 0; }
  th, td { border: 1px solid #d0d7de; padding: .3rem .6rem; text-align: left; vertical-align: top; }
  th { background: #f6f8fa; }
  code, .mono { font-family: ui-monospace, monospace; font-size: 13px; }
  .v-pass, .v-CONFORMANT { background: #dafbe1; }
  .v-fail, .v-NOT-CONFORMANT { background: #ffebe9; }
  .v-warning, .v-INCOMPLETE, .v-error, .v-unstable { background: #fff8c5; }
  .checked-by-registry { font-weight: 600; color: #1a7f37; }
  .v-not-evaluated, .v-not-applicable, .v-SETUP-ERROR { background: #eaeef2; }
  dl { display: grid; grid-template-columns: max-content auto; gap: .2rem 1rem; }
  dt { font-weight: 600; }
  .grid td { text-align: center; font-size: 13px; }
  .grid td:first-child { text-align: left; }
`;

export function page(title: string, body: Html): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · conformance registry</title>
<style>${STYLE}</style>
</head>
<body>
<header><a href="/"><strong>tenant-auth conformance registry</strong></a></header>
<main>
${body.text}
</main>
</body>
</html>
`;
}

/** The class of a verdict's cell (spaces are dashes). */
export const verdictClass = (verdict: string): string => `v-${verdict.replace(/ /g, '-')}`;
