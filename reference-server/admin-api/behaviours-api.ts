// The behaviours of a client's test through the admin API, so that a client in any language can be
// tested as the in-process mock's `use()` and `reset()` test one (behaviours/):
//   GET    /v1/behaviours   the behaviours in force, each with what it has matched (and a rotated
//                           key's replacement, the only place its secret is sent)
//   POST   /v1/behaviours   add them: {"behaviours":[…]} (schemas/behaviour.schema.json) → 201
//   DELETE /v1/behaviours   remove every one (the journal is emptied by DELETE /v1/journal)
import type { IncomingMessage } from 'node:http';
import type { Behaviours } from '../../schemas/generated/behaviour.ts';
import { describeSchemaErrors, validatorFor } from '../../schemas/validators.ts';
import type { BehaviourTable } from '../behaviours/behaviour-table.ts';
import { adminError, type AdminResponse } from '../http/errors.ts';
import { readJsonBody } from './json-body.ts';

export const BEHAVIOURS_PATH = '/v1/behaviours';
const MAX_BODY_BYTES = 64 * 1024;
const validateBehaviours = validatorFor<Behaviours>('behaviour.schema.json');
/** The definition of each kind: one behaviour's problems are told against its own kind alone. */
const DEFINITION_OF_KIND: Record<string, string> = {
  error: 'ErrorBehaviour',
  delay: 'DelayBehaviour',
  reset: 'CutBehaviour',
  goaway: 'CutBehaviour',
  'rst-stream': 'CutBehaviour',
  'revoke-key': 'KeyBehaviour',
  'rotate-key': 'KeyBehaviour',
};

export async function handleBehavioursRequest(
  req: IncomingMessage,
  behaviours: BehaviourTable,
): Promise<AdminResponse> {
  const method = req.method ?? '';
  if (method === 'GET') return ok(200, { object: 'list', data: behaviours.list() });
  if (method === 'DELETE') return ok(200, { object: 'behaviours_deletion', deleted: behaviours.clear() });
  if (method !== 'POST') return adminError('method_not_allowed', undefined, { Allow: 'GET, POST, DELETE' });
  const body = await readJsonBody(req, MAX_BODY_BYTES);
  if ('refusal' in body) return body.refusal;
  const request = body.parsed;
  if (!validateBehaviours(request)) {
    return adminError(
      'invalid_request',
      `The request body is not a valid list of behaviours (schemas/behaviour.schema.json): ${problemsOf(request).join('; ')}.`,
    );
  }
  return ok(201, { object: 'list', data: behaviours.add(request.behaviours) });
}

/** What is wrong, told per behaviour against the definition of its kind (not every branch of oneOf). */
function problemsOf(request: unknown): string[] {
  const items = (request as { behaviours?: unknown } | null)?.behaviours;
  if (!Array.isArray(items) || items.length === 0 || items.length > 100)
    return ['give {"behaviours": [ … ]} with 1 to 100 behaviours'];
  return items.flatMap((item: unknown, index) => {
    const kind = (item as { kind?: unknown } | null)?.kind;
    const definition = typeof kind === 'string' ? DEFINITION_OF_KIND[kind] : undefined;
    if (definition === undefined)
      return [`$.behaviours[${index}].kind: must be one of ${Object.keys(DEFINITION_OF_KIND).join(', ')}`];
    const validate = validatorFor(`behaviour.schema.json#/definitions/${definition}`);
    if (validate(item)) return [];
    return describeSchemaErrors(validate.errors ?? [])
      .filter(
        (problem) => !problem.includes('"then" schema') && !problem.includes('property name must be valid'),
      )
      .map((problem) => problem.replace(/^\$/, `$.behaviours[${index}]`))
      .concat(
        (validate.errors ?? []).some((error) => error.keyword === 'if')
          ? [
              `$.behaviours[${index}]: the code is one of spec §7, whose conditions the spec states: say in "breaksRule" which rule the test breaks`,
            ]
          : [],
      );
  });
}

function ok(status: number, body: unknown): AdminResponse {
  return { status, headers: {}, body };
}
