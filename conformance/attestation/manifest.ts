// SHA256SUMS, in the format of `sha256sum` (`<hex>  <name>`, one a line), so that the bundle's
// files can be checked without the kit: `cd bundle && sha256sum -c SHA256SUMS`.
import { createHash } from 'node:crypto';

export function sha256Hex(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export function renderManifest(digests: ReadonlyMap<string, string>): string {
  return [...digests].map(([name, digest]) => `${digest}  ${name}\n`).join('');
}

/** The digests by file name, or the lines that are not `<64 hex>  <name>`. */
export function parseManifest(text: string): { digests: Map<string, string>; badLines: number[] } {
  const digests = new Map<string, string>();
  const badLines: number[] = [];
  text
    .split('\n')
    .slice(0, text.endsWith('\n') ? -1 : undefined)
    .forEach((line, index) => {
      // sha256sum writes a space and then a space (text) or `*` (binary) before the name.
      const match = /^([0-9a-f]{64}) [ *]([^/\\]+)$/.exec(line);
      if (!match?.[1] || !match[2] || digests.has(match[2])) badLines.push(index + 1);
      else digests.set(match[2], match[1]);
    });
  return { digests, badLines };
}
