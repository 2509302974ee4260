// Looks for secret values in everything a run leaves behind: every file under a directory,
// inside zip files (blob reports) and inside the zip that Playwright's HTML report embeds in
// index.html as base64, so that compression never hides a key from the search.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { unzipSync } from 'fflate';

export interface Finding {
  where: string;
  secretName: string;
}

/** Each secret with the encodings under which a request carries it. */
export function secretForms(secrets: Record<string, string>): Record<string, string> {
  const forms: Record<string, string> = {};
  for (const [name, value] of Object.entries(secrets)) {
    forms[name] = value;
    forms[`${name} (in Bearer)`] = `Bearer ${value}`;
    forms[`${name} (base64)`] = Buffer.from(value).toString('base64');
    forms[`${name} (base64 with colon)`] = Buffer.from(`${value}:`).toString('base64');
  }
  return forms;
}

/** A secret's exact text, or a pattern for secrets the test cannot know (keys minted in a child process). */
export type SecretForm = string | RegExp;

export function scanText(where: string, text: string, forms: Record<string, SecretForm>): Finding[] {
  return Object.entries(forms)
    .filter(([, form]) => (typeof form === 'string' ? text.includes(form) : form.test(text)))
    .map(([secretName]) => ({ where, secretName }));
}

export function scanDirectory(
  directory: string,
  forms: Record<string, SecretForm>,
): { findings: Finding[]; filesScanned: number } {
  const findings: Finding[] = [];
  let filesScanned = 0;
  const scanBytes = (where: string, bytes: Uint8Array): void => {
    filesScanned++;
    const text = Buffer.from(bytes).toString('utf8');
    findings.push(...scanText(where, text, forms));
    if (bytes[0] === 0x50 && bytes[1] === 0x4b) scanZip(where, bytes);
    for (const match of text.matchAll(/data:application\/zip;base64,([A-Za-z0-9+/=]+)/g)) {
      scanZip(`${where} (embedded report data)`, Buffer.from(match[1] ?? '', 'base64'));
    }
  };
  const scanZip = (where: string, bytes: Uint8Array): void => {
    for (const [name, content] of Object.entries(unzipSync(bytes))) scanBytes(`${where}!${name}`, content);
  };
  const walk = (path: string): void => {
    if (statSync(path).isDirectory()) readdirSync(path).forEach((name) => walk(join(path, name)));
    else scanBytes(path, readFileSync(path));
  };
  walk(directory);
  return { findings, filesScanned };
}
