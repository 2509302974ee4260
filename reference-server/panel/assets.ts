// The panel's stylesheet and script, served from the panel's own origin so that the Content
// Security Policy can forbid every inline script and style.

export const PANEL_CSS = `
:root { color-scheme: light; --ink: #1f2933; --muted: #616e7c; --line: #d9dee4; --accent: #2956b2;
  --accent-ink: #fff; --danger: #b42318; --ok-bg: #ecfdf3; --ok-line: #75c69a; --warn-bg: #fff8e6;
  --warn-line: #e8b339; --sandbox: #8a4b00; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink);
  background: #f5f7fa; }
header.top { display: flex; align-items: center; gap: 16px; padding: 12px 24px; background: #fff;
  border-bottom: 1px solid var(--line); }
header.top .brand { font-weight: 700; }
header.top .env { font-size: 12px; font-weight: 600; padding: 2px 8px; border-radius: 999px;
  background: #e8eefb; color: var(--accent); text-transform: uppercase; letter-spacing: .04em; }
header.top .env.sandbox { background: #fdf0dc; color: var(--sandbox); }
header.top .who { margin-left: auto; color: var(--muted); display: flex; gap: 12px; align-items: center; }
.layout { display: flex; gap: 24px; max-width: 1240px; margin: 24px auto; padding: 0 24px; }
nav.side { width: 200px; flex: none; }
nav.side h2 { font-size: 12px; text-transform: uppercase; letter-spacing: .06em; color: var(--muted); margin: 16px 0 4px; }
nav.side a { display: block; padding: 6px 10px; border-radius: 6px; color: var(--ink); text-decoration: none; }
nav.side a[aria-current="page"] { background: #e8eefb; color: var(--accent); font-weight: 600; }
nav.side .sub { margin-left: 12px; }
main { flex: 1; min-width: 0; }
.breadcrumb { color: var(--muted); font-size: 13px; margin-bottom: 4px; }
h1 { font-size: 24px; margin: 0 0 16px; }
h2 { font-size: 17px; margin: 0 0 12px; }
.card { background: #fff; border: 1px solid var(--line); border-radius: 10px; padding: 20px; margin-bottom: 20px; }
label { display: block; font-weight: 600; margin-bottom: 4px; }
input[type=text], input[type=email], input[type=password] { width: 100%; max-width: 420px; padding: 8px 10px;
  border: 1px solid var(--line); border-radius: 6px; font: inherit; }
fieldset { border: 0; padding: 0; margin: 16px 0; }
legend { font-weight: 600; margin-bottom: 6px; }
.choice { display: flex; gap: 8px; align-items: baseline; font-weight: 400; margin: 4px 0; }
.choice small { color: var(--muted); }
.permissions { margin-left: 26px; display: grid; grid-template-columns: repeat(2, max-content); gap: 2px 24px; }
button { font: inherit; padding: 8px 14px; border-radius: 6px; border: 1px solid var(--accent);
  background: var(--accent); color: var(--accent-ink); cursor: pointer; }
button.secondary { background: #fff; color: var(--accent); }
button.danger { background: #fff; color: var(--danger); border-color: var(--danger); }
button.link { background: none; border: 0; color: var(--accent); padding: 0; }
.hint { color: var(--muted); font-size: 13px; }
table { width: 100%; border-collapse: collapse; }
th, td { text-align: left; padding: 10px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-size: 12px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); }
td code, .secret code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 13px; white-space: nowrap; }
td time span { white-space: nowrap; }
.actions button { padding: 5px 10px; }
tr.revoked td { color: var(--muted); }
.status { font-size: 12px; font-weight: 600; padding: 2px 8px; border-radius: 999px; background: var(--ok-bg); color: #067647; }
.status.revoked { background: #f2f4f7; color: var(--muted); }
.status.exposed { background: #fef3f2; color: #b42318; }
.actions { display: flex; gap: 8px; }
.actions form { margin: 0; }
.notice { border: 1px solid var(--ok-line); background: var(--ok-bg); border-radius: 10px; padding: 16px 20px; margin-bottom: 20px; }
.notice.warn { border-color: var(--warn-line); background: var(--warn-bg); }
.error { border: 1px solid #f5a3a3; background: #fef3f2; color: var(--danger); border-radius: 8px; padding: 10px 14px; margin-bottom: 16px; }
.secret { display: flex; gap: 8px; align-items: center; margin: 10px 0; }
.secret input { flex: 1; max-width: 560px; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; padding: 8px 10px;
  border: 1px solid var(--line); border-radius: 6px; background: #fff; }
.signin { max-width: 420px; margin: 64px auto; }
dl.profile { display: grid; grid-template-columns: max-content 1fr; gap: 6px 20px; margin: 0; }
dl.profile dt { color: var(--muted); }
`;

export const PANEL_JS = `
'use strict';
// Copy buttons: copy the text of the input named by data-copy-target. Without the Clipboard API
// (or without permission) the text is selected, so that the user can copy it by hand.
document.querySelectorAll('button[data-copy-target]').forEach(function (button) {
  button.addEventListener('click', function () {
    var input = document.getElementById(button.getAttribute('data-copy-target'));
    if (!input) return;
    var done = function () { button.textContent = 'Copied'; };
    var fallback = function () { input.focus(); input.select(); button.textContent = 'Press Ctrl+C to copy'; };
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(input.value).then(done, fallback);
    } else {
      fallback();
    }
  });
});
// Revoke and rotate ask once before they act.
document.querySelectorAll('form[data-confirm]').forEach(function (form) {
  form.addEventListener('submit', function (event) {
    if (!window.confirm(form.getAttribute('data-confirm'))) event.preventDefault();
  });
});
// The permission boxes only count for "Chosen permissions": enable them only then.
var accessInputs = document.querySelectorAll('input[name="access"]');
var permissionBoxes = document.querySelectorAll('input[name="permissions"]');
var syncPermissions = function () {
  var custom = document.querySelector('input[name="access"][value="custom"]');
  permissionBoxes.forEach(function (box) { box.disabled = !(custom && custom.checked); });
};
accessInputs.forEach(function (input) { input.addEventListener('change', syncPermissions); });
syncPermissions();
`;
