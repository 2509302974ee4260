// Which tenant id fields a request body carried (spec §5 Tenant identification 3: never in
// payloads). The API never reads a body, so the journal reads it beside the answer: up to a limit,
// then the rest is drained unread, as Node would drain it. Only the names found are kept.
import type { IncomingMessage } from 'node:http';

const MAX_SCANNED_BYTES = 64 * 1024;
const MAX_NODES = 10_000;
const TENANT_FIELDS = new Set(['tenant_id', 'company_id', 'organization_id']);
/** For a body that is not JSON (or too long to parse whole): a field name in JSON quotes, in any case. */
const TENANT_FIELD_TEXT = /"(tenant_id|company_id|organization_id)"\s*:/gi;

/** Reads `req`'s body and calls `found` with the tenant id fields in it (never when there are none). */
export function watchBody(req: IncomingMessage, found: (fields: string[]) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  req.on('data', (chunk: Buffer) => {
    if (size < MAX_SCANNED_BYTES) chunks.push(chunk);
    size += chunk.length;
  });
  req.once('end', () => {
    const fields = tenantFieldsIn(Buffer.concat(chunks).subarray(0, MAX_SCANNED_BYTES).toString('utf8'));
    if (fields.length > 0) found(fields.map((name) => `body:${name}`));
  });
  // A client that goes away mid-body only ends the reading.
  req.once('error', () => {});
}

export function tenantFieldsIn(text: string): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return [
      ...new Set([...text.matchAll(TENANT_FIELD_TEXT)].map((match) => (match[1] as string).toLowerCase())),
    ];
  }
  const names = new Set<string>();
  // Breadth-first over objects and arrays, bounded in nodes so that no body costs much.
  const queue: unknown[] = [parsed];
  for (let visited = 0; visited < queue.length && visited < MAX_NODES; visited++) {
    const node = queue[visited];
    if (Array.isArray(node)) queue.push(...(node as unknown[]));
    else if (node !== null && typeof node === 'object') {
      for (const [name, value] of Object.entries(node)) {
        if (TENANT_FIELDS.has(name.toLowerCase())) names.add(name.toLowerCase());
        queue.push(value);
      }
    }
  }
  return [...names];
}
