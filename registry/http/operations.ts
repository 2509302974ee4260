// The registry's operations API: yank a run, record a release, apply the retention policy, read the
// audit list. Each needs a token: a yank or a release is the deployment's own publisher's or the
// operator's (`registry publisher --operator`); retention and the audit list are the operator's.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Database } from '../database/database.ts';
import { authenticate, type Publisher } from '../publish/publishers.ts';
import { versionProblem } from '../publish/upload.ts';
import { auditList } from '../store/audit.ts';
import { recordRelease, ReleaseError } from '../store/releases.ts';
import { applyRetention, policyProblem, type RetentionPolicy } from '../store/retention.ts';
import { deploymentExists, type StoredRun } from '../store/runs.ts';
import { reasonProblem, YankError, yankRun } from '../store/yanks.ts';
import { authenticationError, runJson, type ApiContext } from './api.ts';
import { readBody } from './body.ts';
import { linkHeader, nextPath, pageRequest } from './paging.ts';
import { RequestError, sendJson } from './respond.ts';

/** An operation's body is a small JSON object. */
const MAX_OPERATION_BYTES = 16 * 1024;

function who(context: ApiContext, request: IncomingMessage): Publisher {
  const authentication = authenticate(context.publishers.current(), request.headers.authorization);
  if (authentication.state !== 'ok') throw authenticationError(authentication.state);
  return authentication.publisher;
}

export async function jsonBody(request: IncomingMessage): Promise<Record<string, unknown>> {
  const body = await readBody(
    request,
    MAX_OPERATION_BYTES,
    () =>
      new RequestError(413, 'body_too_large', `An operation's body is at most ${MAX_OPERATION_BYTES} bytes.`),
  );
  let value: unknown;
  try {
    value = body.length === 0 ? {} : JSON.parse(body.toString('utf8'));
  } catch {
    throw new RequestError(400, 'bad_body', 'The body is not JSON: send a JSON object.');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new RequestError(400, 'bad_body', 'The body is not a JSON object.');
  return value as Record<string, unknown>;
}

const forbidden = (message: string): RequestError => new RequestError(403, 'not_allowed', message);

/** The deployment's own publisher (its owner) or the operator may change what it shows. */
async function mayChange(db: Database, actor: Publisher, deployment: string): Promise<void> {
  if (actor.operator) return;
  const [owner] = await db.query<{ publisher: string }>('SELECT publisher FROM deployments WHERE name = $1', [
    deployment,
  ]);
  if (owner?.publisher !== actor.name || actor.keys.length === 0)
    throw forbidden(
      `${actor.name} is not the publisher of "${deployment}" nor the registry's operator: only they may change it.`,
    );
}

function operatorOnly(actor: Publisher, what: string): void {
  if (!actor.operator)
    throw forbidden(`${what} is the operator's: use a token made by registry publisher --operator.`);
}

export async function yank(
  context: ApiContext,
  id: number,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const actor = who(context, request);
  const { reason } = await jsonBody(request);
  const problem = reasonProblem(reason);
  if (problem) throw new RequestError(400, 'bad_reason', problem);
  const [owner] = await context.db.query<{ deployment: string; version: string }>(
    'SELECT deployment, version FROM runs WHERE id = $1',
    [id],
  );
  if (!owner) throw new RequestError(404, 'no_such_run', `The registry has no run ${id}.`);
  await mayChange(context.db, actor, owner.deployment);
  try {
    const run = await context.webhooks.around<StoredRun>(
      owner.deployment,
      owner.version,
      (queue) => yankRun(context.db, id, actor.name, String(reason), queue),
      (yanked) => ({ kind: 'yanked', run: yanked }),
    );
    sendJson(response, 200, { run: runJson(run) });
  } catch (error) {
    if (!(error instanceof YankError)) throw error;
    throw new RequestError(error.kind === 'no_such_run' ? 404 : 409, error.kind, error.message);
  }
}

export async function release(
  context: ApiContext,
  deployment: string,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const actor = who(context, request);
  const { version } = await jsonBody(request);
  const problem =
    typeof version === 'string' ? versionProblem(version) : 'Give the version: {"version": "1.4.2"}.';
  if (problem) throw new RequestError(400, 'bad_version', problem);
  if (!(await deploymentExists(context.db, deployment)))
    throw new RequestError(
      404,
      'no_such_deployment',
      `The registry has no deployment named "${deployment}".`,
    );
  await mayChange(context.db, actor, deployment);
  try {
    const recorded = await recordRelease(context.db, deployment, String(version), actor.name);
    sendJson(response, 201, { deployment, release: recorded });
  } catch (error) {
    if (!(error instanceof ReleaseError)) throw error;
    throw new RequestError(404, 'no_such_version', error.message);
  }
}

export async function retention(
  context: ApiContext,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const actor = who(context, request);
  operatorOnly(actor, 'The retention policy');
  const body = await jsonBody(request);
  const policy: RetentionPolicy = {
    ...(body.keepLast !== undefined ? { keepLast: body.keepLast as number } : {}),
    ...(body.maxAgeDays !== undefined ? { maxAgeDays: body.maxAgeDays as number } : {}),
  };
  const problem = policyProblem(policy);
  if (problem) throw new RequestError(400, 'bad_policy', problem);
  if (body.dryRun !== undefined && typeof body.dryRun !== 'boolean')
    throw new RequestError(400, 'bad_policy', 'dryRun must be true or false.');
  const dryRun = body.dryRun === true;
  const result = await applyRetention(context.db, policy, actor.name, {
    dryRun,
    ...(context.blobs ? { blobs: context.blobs } : {}),
  });
  sendJson(response, 200, { dryRun, policy, ...result });
}

/** The audit list's page sizes: an operator reads more at once than a visitor's list shows. */
const AUDIT_LIMIT = { default: 100, max: 1000 } as const;

export async function auditAnswer(
  context: ApiContext,
  query: URLSearchParams,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  operatorOnly(who(context, request), 'The audit list');
  const page = pageRequest('audit', query, AUDIT_LIMIT);
  const listed = await auditList(context.db, page);
  const next = nextPath('/api/v1/audit', 'audit', page, listed.next);
  sendJson(response, 200, { entries: listed.entries, next: next ?? null }, linkHeader(next));
}
