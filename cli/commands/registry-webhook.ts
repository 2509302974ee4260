// `registry webhook add|list|remove|deliveries`: a publisher's (or the operator's) webhooks. `add`
// prints the webhook's secret on standard output, once (the rest on standard error), so that
// `… add … > hook.secret` keeps it; no other command shows it.
import { eventsProblem, WEBHOOK_EVENTS, webhookUrlProblem } from '../../registry/webhooks/url.ts';
import type { Delivery, Webhook } from '../../registry/webhooks/store.ts';
import { deploymentProblem } from '../../registry/publish/upload.ts';
import { commandArguments } from '../arguments.ts';
import { EXIT } from '../exit-codes.ts';
import { REGISTRY_CLIENT_FLAGS, REGISTRY_CLIENT_OPTIONS, registryProblems } from './registry-publish.ts';
import { OPERATION_EXIT_CODES, operation } from './registry-operation.ts';

const HELP = `Usage: tenant-auth-conformance registry webhook add --url URL --events E[,E…] [--deployment D]
       tenant-auth-conformance registry webhook list
       tenant-auth-conformance registry webhook remove ID
       tenant-auth-conformance registry webhook deliveries ID [--limit N]
  each with --registry URL [--token-file FILE] [--ca-file FILE]

A webhook is an https URL the registry POSTs an event to, as JSON signed with the webhook's secret
(X-Registry-Signature-256: sha256=HMAC-SHA256 of the body, hex), retried with backoff until it
answers 2xx. Events: ${WEBHOOK_EVENTS.join(', ')}.
A publisher watches its own deployments (one with --deployment, else all of them); the operator's
token watches any deployment, or every one. add prints the secret on standard output, this once.

Options:
  --url URL             where to deliver (https only, no user:password@)
  --events LIST         the events, comma-separated
  --deployment NAME     only this deployment's events
  --limit N             deliveries: how many, newest first, 1 to 200 (default 50)
  --json                print the registry's answer as JSON
${REGISTRY_CLIENT_OPTIONS}
  --help                print this help

${OPERATION_EXIT_CODES}`;

const webhookLine = (webhook: Webhook): string =>
  `${webhook.id}  ${webhook.url}  ${webhook.events.join(',')}  ${webhook.deployment ?? (webhook.operator ? 'every deployment' : `every deployment of ${webhook.owner}`)}`;

const deliveryLine = (delivery: Delivery): string =>
  `${delivery.createdAt}  ${delivery.event}  ${delivery.status}  attempts ${delivery.attempts}  ${delivery.lastStatus !== null ? `HTTP ${delivery.lastStatus}` : (delivery.lastError ?? '')}  ${delivery.deliveryId}`;

export async function main(argv: string[]): Promise<number> {
  const parsed = commandArguments(
    argv,
    {
      ...REGISTRY_CLIENT_FLAGS,
      url: { type: 'string' },
      events: { type: 'string' },
      deployment: { type: 'string' },
      limit: { type: 'string' },
      json: { type: 'boolean' },
    },
    HELP,
  );
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  const [action, id] = positionals;
  const events = values.events?.split(',').map((event) => event.trim());
  const limit = values.limit ?? '50';
  const needsId = action === 'remove' || action === 'deliveries';
  const problems = [
    ...(action === 'add' || action === 'list' || needsId
      ? []
      : ['Give an action: add, list, remove ID or deliveries ID.']),
    ...(needsId && (positionals.length !== 2 || !/^[1-9][0-9]{0,9}$/.test(id ?? ''))
      ? [`Give one webhook number: registry webhook ${action} ID (registry webhook list shows them).`]
      : []),
    ...(action === 'add'
      ? [
          webhookUrlProblem(values.url) ?? [],
          eventsProblem(events) ?? [],
          (values.deployment !== undefined && deploymentProblem(values.deployment)) || [],
        ].flat()
      : []),
    ...(/^[1-9][0-9]{0,2}$/.test(limit) && Number(limit) <= 200
      ? []
      : [`--limit: "${limit.slice(0, 20)}" is not a whole number from 1 to 200.`]),
    ...registryProblems(values.registry),
  ];
  if (problems.length > 0) {
    console.error(`${problems.join('\n')}\n\n${HELP}`);
    return EXIT.usage;
  }
  const json = (answer: unknown): boolean => {
    if (values.json === true) console.log(JSON.stringify(answer, null, 2));
    return values.json === true;
  };
  if (action === 'add')
    return operation(
      values,
      {
        method: 'POST',
        path: '/api/v1/webhooks',
        body: {
          url: values.url,
          events,
          ...(values.deployment !== undefined ? { deployment: values.deployment } : {}),
        },
      },
      (answer) => {
        const { webhook, secret } = answer as { webhook: Webhook; secret: string };
        console.error(
          `Webhook ${webhook.id}: ${webhookLine(webhook)}.\nIts secret follows on standard output, shown this once: keep it where the endpoint checks X-Registry-Signature-256.`,
        );
        console.log(secret);
      },
    );
  if (action === 'list')
    return operation(values, { method: 'GET', path: '/api/v1/webhooks?limit=200' }, (answer) => {
      if (json(answer)) return;
      const { webhooks } = answer as { webhooks: Webhook[] };
      console.log(webhooks.length === 0 ? 'No webhook.' : webhooks.map(webhookLine).join('\n'));
    });
  if (action === 'remove')
    return operation(values, { method: 'POST', path: `/api/v1/webhooks/${id}/remove` }, () =>
      console.log(`Removed webhook ${id}, and its deliveries: nothing more is sent to it.`),
    );
  return operation(
    values,
    { method: 'GET', path: `/api/v1/webhooks/${id}/deliveries?limit=${limit}` },
    (answer) => {
      if (json(answer)) return;
      const { deliveries } = answer as { deliveries: Delivery[] };
      console.log(deliveries.length === 0 ? 'No delivery yet.' : deliveries.map(deliveryLine).join('\n'));
    },
  );
}
