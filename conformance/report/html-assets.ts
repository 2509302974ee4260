// The style and the filter script of conformance.html, inlined into the page: the report is one
// file that opens anywhere, offline, and loads nothing (its Content-Security-Policy forbids it).

export const STYLE = `
:root { --pass: #1e7b34; --fail: #b3261e; --warning: #8a5a00; --ne: #5f6368; --error: #b3261e; }
* { box-sizing: border-box; }
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0; color: #202124; background: #fafafa; }
main { max-width: 1200px; margin: 0 auto; padding: 1.5rem; }
h1 { font-size: 1.4rem; margin: 0 0 .5rem; } h2 { font-size: 1.15rem; margin: 2rem 0 .6rem; } h3 { font-size: 1rem; margin: 0 0 .4rem; }
.banner { padding: 1.2rem 1.5rem; border-radius: 8px; color: #fff; }
.banner .verdict { font-size: 2rem; font-weight: 700; letter-spacing: .02em; }
.banner dl { display: grid; grid-template-columns: max-content 1fr; gap: .15rem 1rem; margin: .8rem 0 0; }
.banner dt { opacity: .85; } .banner dd { margin: 0; font-weight: 600; overflow-wrap: anywhere; }
.v-conformant { background: var(--pass); } .v-not-conformant, .v-setup-error { background: var(--fail); }
.v-incomplete { background: var(--warning); }
.setup { border: 2px solid var(--fail); background: #fff; padding: .8rem 1rem; border-radius: 6px; margin-top: 1rem; }
table { border-collapse: collapse; background: #fff; width: 100%; }
th, td { border: 1px solid #dadce0; padding: .35rem .6rem; text-align: left; vertical-align: top; }
th { background: #f1f3f4; }
table.counts { width: auto; } table.counts td { text-align: right; min-width: 6rem; }
.badge { display: inline-block; padding: 0 .45rem; border-radius: 4px; font-weight: 600; font-size: .85rem; white-space: nowrap; }
.o-pass { color: var(--pass); } .o-fail, .o-error { color: #fff; background: var(--fail); }
.o-warning { color: #3c2a00; background: #fde293; } .o-not-evaluated, .o-not-applicable { color: #fff; background: var(--ne); }
.filters { display: flex; flex-wrap: wrap; gap: 1rem; align-items: flex-start; margin: .5rem 0 1rem; }
.filters fieldset { border: 1px solid #dadce0; border-radius: 6px; background: #fff; margin: 0; }
.filters label { margin-right: .8rem; white-space: nowrap; }
.shown { margin-left: auto; align-self: center; color: #5f6368; }
.rule-id { font-family: ui-monospace, "SFMono-Regular", Menlo, monospace; white-space: nowrap; }
.detail { background: #fff; border: 1px solid #dadce0; border-left: 6px solid var(--ne); border-radius: 6px; padding: .8rem 1rem; margin: 0 0 1rem; }
.detail.o-fail-b, .detail.o-error-b { border-left-color: var(--fail); } .detail.o-warning-b { border-left-color: #f9ab00; }
.expected { font-weight: 600; margin: .3rem 0 .6rem; overflow-wrap: anywhere; }
.exchange { border-top: 1px dashed #dadce0; padding-top: .6rem; margin-top: .6rem; }
.exchange h4 { margin: 0 0 .3rem; font-size: .95rem; }
pre { background: #f1f3f4; padding: .5rem .7rem; border-radius: 4px; overflow-x: auto; white-space: pre-wrap; overflow-wrap: anywhere; margin: .3rem 0; font-size: .85rem; }
pre.curl { background: #202124; color: #e8eaed; }
.headers td:first-child { font-family: ui-monospace, Menlo, monospace; white-space: nowrap; width: 1%; }
.headers td { font-family: ui-monospace, Menlo, monospace; font-size: .85rem; overflow-wrap: anywhere; }
.muted { color: #5f6368; }
[hidden] { display: none !important; }
.banner details { margin-top: .6rem; } .banner summary { cursor: pointer; opacity: .9; }
.per-protocol .protocol { white-space: nowrap; margin-right: .4rem; }
`;

/** Shows the rules (table rows and detail sections) whose outcome and level are both ticked. */
export const FILTER_SCRIPT = `
(() => {
  const form = document.getElementById('filters');
  const items = Array.from(document.querySelectorAll('[data-verdict][data-level]'));
  const rows = items.filter((item) => item.tagName === 'TR');
  const shown = document.getElementById('shown');
  const ticked = (name) => new Set(Array.from(form.querySelectorAll('input[name="' + name + '"]:checked'), (box) => box.value));
  const apply = () => {
    const verdicts = ticked('verdict');
    const levels = ticked('level');
    for (const item of items) item.hidden = !(verdicts.has(item.dataset.verdict) && levels.has(item.dataset.level));
    shown.textContent = rows.filter((row) => !row.hidden).length + ' of ' + rows.length + ' rules shown';
  };
  form.addEventListener('change', apply);
  apply();
})();
`;
