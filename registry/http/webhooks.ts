// The webhooks API: register (the secret is in this answer only), list, remove, and read a
// webhook's deliveries. A deployment's publisher registers webhooks for its own deployments (one,
// or all of them); the operator for any deployment, or every one. Each sees and removes its own;
// the operator sees every webhook. No answer carries a secret but the one that made it.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { authenticate, type Publisher } from '../publish/publishers.ts';
import { deploymentProblem } from '../publish/upload.ts';
import {
  addWebhook,
  deliveriesPage,
  removeWebhook,
  webhookById,
  webhooksPage,
  type Webhook,
} from '../webhooks/store.ts';
import { eventsProblem, webhookUrlProblem, type WebhookEvent } from '../webhooks/url.ts';
import { authenticationError, type ApiContext } from './api.ts';
import { jsonBody } from './operations.ts';
import { linkHeader, nextPath, pageRequest } from './paging.ts';
import { RequestError, sendJson } from './respond.ts';

function caller(context: ApiContext, request: IncomingMessage): Publisher {
  const authentication = authenticate(context.publishers.current(), request.headers.authorization);
  if (authentication.state !== 'ok') throw authenticationError(authentication.state);
  const actor = authentication.publisher;
  if (!actor.operator && actor.keys.length === 0)
    throw new RequestError(
      403,
      'not_allowed',
      `${actor.name} is a reader: a webhook is registered by a deployment's publisher or the operator.`,
    );
  return actor;
}

const WEBHOOK_ID = /^[1-9][0-9]{0,9}$/;

async function ownWebhook(context: ApiContext, actor: Publisher, text: string): Promise<Webhook> {
  const webhook =
    WEBHOOK_ID.test(text) && Number(text) <= 2_147_483_647
      ? await webhookById(context.db, Number(text))
      : undefined;
  // Another publisher's webhook is as absent as none: its existence is not theirs to learn.
  if (!webhook || (!actor.operator && webhook.owner !== actor.name))
    throw new RequestError(
      404,
      'no_such_webhook',
      `You have no webhook ${text.slice(0, 20)}: registry webhook list shows yours.`,
    );
  return webhook;
}

async function register(
  context: ApiContext,
  actor: Publisher,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const body = await jsonBody(request);
  const problem =
    webhookUrlProblem(body.url, context.webhooks.options.allowedHosts) ?? eventsProblem(body.events);
  if (problem) throw new RequestError(400, 'bad_webhook', problem);
  let deployment: string | null = null;
  if (body.deployment !== undefined && body.deployment !== null) {
    const named = deploymentProblem(body.deployment);
    if (named || typeof body.deployment !== 'string')
      throw new RequestError(400, 'bad_deployment', named ?? 'Give the deployment as a string.');
    deployment = body.deployment;
    const [owner] = await context.db.query<{ publisher: string }>(
      'SELECT publisher FROM deployments WHERE name = $1',
      [deployment],
    );
    if (!owner)
      throw new RequestError(
        404,
        'no_such_deployment',
        `The registry has no deployment named "${deployment}".`,
      );
    if (!actor.operator && owner.publisher !== actor.name)
      throw new RequestError(
        403,
        'not_allowed',
        `${actor.name} is not the publisher of "${deployment}" nor the registry's operator: only they may watch it.`,
      );
  }
  const events = [...new Set(body.events as WebhookEvent[])];
  const made = await addWebhook(context.db, {
    owner: actor.name,
    operator: actor.operator,
    deployment,
    url: String(body.url),
    events,
  });
  sendJson(
    response,
    201,
    {
      webhook: made.webhook,
      secret: made.secret,
      note: 'The secret is shown this once: keep it where the endpoint checks X-Registry-Signature-256.',
    },
    { Location: `/api/v1/webhooks/${made.webhook.id}` },
  );
}

/** /api/v1/webhooks, /api/v1/webhooks/ID/remove and /api/v1/webhooks/ID/deliveries. */
export async function webhookRoutes(
  context: ApiContext,
  path: string,
  method: string,
  query: URLSearchParams,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const [, id, action] = /^\/api\/v1\/webhooks(?:\/([^/]+)(?:\/([^/]+))?)?\/?$/.exec(path) ?? [];
  const expected =
    id === undefined ? (method === 'POST' ? 'POST' : 'GET') : action === 'remove' ? 'POST' : 'GET';
  if (id !== undefined && action !== 'remove' && action !== 'deliveries')
    throw new RequestError(
      404,
      'not_found',
      `No API at ${path.slice(0, 100)}: see docs/registry-openapi.json.`,
    );
  if (method !== expected)
    throw new RequestError(405, 'method_not_allowed', `${expected} ${path.slice(0, 100)}.`);
  const actor = caller(context, request);
  if (id === undefined && method === 'POST') return register(context, actor, request, response);
  if (id === undefined) {
    const page = pageRequest('webhooks', query);
    const listed = await webhooksPage(context.db, actor.operator ? undefined : actor.name, page);
    const next = nextPath('/api/v1/webhooks', 'webhooks', page, listed.next);
    return sendJson(response, 200, { webhooks: listed.webhooks, next: next ?? null }, linkHeader(next));
  }
  const webhook = await ownWebhook(context, actor, id);
  if (action === 'remove') {
    await removeWebhook(context.db, webhook.id);
    return sendJson(response, 200, { removed: webhook });
  }
  const page = pageRequest('deliveries', query);
  const listed = await deliveriesPage(context.db, { webhookId: webhook.id }, page);
  const next = nextPath(`/api/v1/webhooks/${webhook.id}/deliveries`, 'deliveries', page, listed.next);
  sendJson(response, 200, { webhook, deliveries: listed.deliveries, next: next ?? null }, linkHeader(next));
}
