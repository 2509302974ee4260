// badge.svg: the verdict, profile and date of a run in the flat style of CI badges (a grey label,
// a coloured message, 20 px high), and the Markdown line that shows it in a README. Drawn here
// rather than fetched from a badge service: a bundle must be complete offline.
import type { ConformanceReport } from '../../schemas/generated/conformance-report.ts';
import { verdictWithScope } from '../report/scope.ts';
import { revokedKeyOnVendorsWord } from '../report/vendor-inputs.ts';
import { BADGE_FILE } from './bundle-files.ts';

const LABEL = 'tenant-auth conformance';

/** What the badge shows: the verdict with its scope ("CONFORMANT · HTTP/1.1 only"), profile, date. */
type BadgeFields = Pick<ConformanceReport, 'verdict' | 'profile' | 'startedAt' | 'scope'>;

/** The colours badges use for passing, failing, partial and unknown. */
const COLOUR: Record<ConformanceReport['verdict'], string> = {
  CONFORMANT: '#4c1',
  'NOT CONFORMANT': '#e05d44',
  INCOMPLETE: '#dfb317',
  'SETUP ERROR': '#9f9f9f',
};

export function badgeMessage(report: BadgeFields): string {
  // A revoked key the kit did not revoke itself may never have been a key: the badge says so.
  const revoked = revokedKeyOnVendorsWord(report.scope) ? ` · ${REVOKED_KEY_MARK}` : '';
  return `${verdictWithScope(report)} · ${report.profile} · ${report.startedAt.slice(0, 10)}${revoked}`;
}

/** The badge's mark of a run whose revoked key is the vendor's word. */
export const REVOKED_KEY_MARK = "revoked key: vendor's word";

export function renderBadge(report: BadgeFields): string {
  const message = badgeMessage(report);
  const labelWidth = textWidth(LABEL) + 10;
  const messageWidth = textWidth(message) + 10;
  const width = labelWidth + messageWidth;
  const title = escapeXml(`${LABEL}: ${message}`);
  // Text is drawn at 10× and scaled down, as the flat badges do, for sub-pixel placement;
  // textLength fits it to the computed width whatever font the viewer has.
  const text = (content: string, left: number, span: number): string => {
    const x = (left + span / 2) * 10;
    const length = (span - 10) * 10;
    const escaped = escapeXml(content);
    return (
      `<text aria-hidden="true" x="${x}" y="150" fill="#010101" fill-opacity=".3" transform="scale(.1)" textLength="${length}">${escaped}</text>` +
      `<text x="${x}" y="140" transform="scale(.1)" fill="#fff" textLength="${length}">${escaped}</text>`
    );
  };
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="20" role="img" aria-label="${title}">`,
    `<title>${title}</title>`,
    '<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>',
    `<clipPath id="r"><rect width="${width}" height="20" rx="3" fill="#fff"/></clipPath>`,
    `<g clip-path="url(#r)"><rect width="${labelWidth}" height="20" fill="#555"/><rect x="${labelWidth}" width="${messageWidth}" height="20" fill="${COLOUR[report.verdict]}"/><rect width="${width}" height="20" fill="url(#s)"/></g>`,
    '<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" text-rendering="geometricPrecision" font-size="110">',
    text(LABEL, 0, labelWidth),
    text(message, labelWidth, messageWidth),
    '</g>',
    '</svg>',
    '',
  ].join('\n');
}

/** The line to paste into a README, the badge linking to the HTML report next to it. */
export function badgeMarkdown(report: BadgeFields, where = 'bundle'): string {
  return `[![${LABEL}: ${badgeMessage(report)}](${where}/${BADGE_FILE})](${where}/conformance.html)`;
}

/** Verdana 11 px, roughly: the widths only size the boxes; textLength fits the text into them. */
function textWidth(text: string): number {
  let width = 0;
  for (const char of text) {
    if (char === ' ') width += 3.9;
    else if (/[A-Z]/.test(char)) width += 7.6;
    else if (/[0-9]/.test(char)) width += 7;
    else if (/[il.·:-]/.test(char)) width += 3.5;
    else width += 6.3;
  }
  return Math.round(width);
}

function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
