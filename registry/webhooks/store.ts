// Webhooks and their deliveries in the database. A webhook's secret is read only to sign (and shown
// once, when made); no read of a list returns it. A delivery is a row of the queue: `pending` until
// the worker claims it (`delivering`, with a lease), then `delivered` or `failed`, or `pending`
// again with the time of its next attempt. A lease that ran out (a registry stopped mid-attempt) is
// claimed again, so a restart resumes every delivery not finished.
import { randomBytes, randomUUID } from 'node:crypto';
import type { Queryable } from '../database/database.ts';
import type { WebhookEvent } from './url.ts';

export interface Webhook {
  id: number;
  owner: string;
  /** Made by the operator: delivers for every deployment (or the one named). */
  operator: boolean;
  /** Only this deployment's events; null: every deployment the owner publishes (the operator: all). */
  deployment: string | null;
  url: string;
  events: WebhookEvent[];
  createdAt: string;
}

export interface Delivery {
  deliveryId: string;
  webhookId: number;
  eventId: string;
  event: WebhookEvent;
  deployment: string;
  status: 'pending' | 'delivering' | 'delivered' | 'failed';
  attempts: number;
  createdAt: string;
  nextAttemptAt: string | null;
  lastAttemptAt: string | null;
  /** The endpoint's last HTTP status, when it answered. */
  lastStatus: number | null;
  /** Why the last attempt failed, when it did (never the secret, nor the endpoint's body). */
  lastError: string | null;
  deliveredAt: string | null;
}

/** One event, for every webhook it matches. */
export interface EventToSend {
  event: WebhookEvent;
  deployment: string;
  /** The JSON body, as sent and signed. */
  body: string;
  eventId: string;
}

const iso = (value: Date | string | null): string | null =>
  value === null ? null : new Date(value).toISOString();

interface WebhookRow {
  id: number;
  owner: string;
  operator: boolean;
  deployment: string | null;
  url: string;
  events: WebhookEvent[];
  created_at: Date | string;
}

const WEBHOOK_COLUMNS = 'id, owner, operator, deployment, url, events, created_at';

const webhookOf = (row: WebhookRow): Webhook => ({
  id: row.id,
  owner: row.owner,
  operator: row.operator,
  deployment: row.deployment,
  url: row.url,
  events: row.events,
  createdAt: iso(row.created_at) ?? '',
});

/** A new secret: 32 random bytes, prefixed so that a secret scanner recognises it. */
export const newSecret = (): string => `tacw_${randomBytes(32).toString('base64url')}`;

export async function addWebhook(
  db: Queryable,
  webhook: Pick<Webhook, 'owner' | 'operator' | 'deployment' | 'url' | 'events'>,
): Promise<{ webhook: Webhook; secret: string }> {
  const secret = newSecret();
  const [row] = await db.query<WebhookRow>(
    `INSERT INTO webhooks (owner, operator, deployment, url, events, secret) VALUES ($1, $2, $3, $4, $5, $6)
     RETURNING ${WEBHOOK_COLUMNS}`,
    [webhook.owner, webhook.operator, webhook.deployment, webhook.url, webhook.events, secret],
  );
  if (!row) throw new Error('the webhook was not inserted');
  return { webhook: webhookOf(row), secret };
}

export async function webhookById(db: Queryable, id: number): Promise<Webhook | undefined> {
  const [row] = await db.query<WebhookRow>(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE id = $1`, [id]);
  return row && webhookOf(row);
}

/** Removes a webhook and its deliveries (a pending one is never sent). */
export async function removeWebhook(db: Queryable, id: number): Promise<void> {
  await db.query('DELETE FROM webhooks WHERE id = $1', [id]);
}

/** A page of webhooks by id: `owner`'s, or every one (owner undefined: the operator's view). */
export async function webhooksPage(
  db: Queryable,
  owner: string | undefined,
  { after, limit }: { after: number | undefined; limit: number },
): Promise<{ webhooks: Webhook[]; next: number | undefined }> {
  const rows = await db.query<WebhookRow>(
    `SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE id > $1 AND ($2::text IS NULL OR owner = $2) ORDER BY id LIMIT $3`,
    [after ?? 0, owner ?? null, limit + 1],
  );
  const webhooks = rows.slice(0, limit).map(webhookOf);
  return { webhooks, next: rows.length > limit ? webhooks.at(-1)?.id : undefined };
}

/**
 * The events any webhook wants for `deployment` (published by `publisher` when it is new): one of
 * its publisher's webhooks (for it, or for all of theirs), or an operator's (for it, or for all).
 * Empty: nothing to derive or send.
 */
export async function eventsWanted(
  db: Queryable,
  deployment: string,
  publisher?: string,
): Promise<Set<WebhookEvent>> {
  // A deployment's first publish makes it: until then its publisher is the one publishing.
  const rows = await db.query<{ event: WebhookEvent }>(
    `SELECT DISTINCT unnest(w.events) AS event FROM webhooks w
     WHERE (w.deployment IS NULL OR w.deployment = $1)
       AND (w.operator OR w.owner = coalesce((SELECT publisher FROM deployments WHERE name = $1), $2))`,
    [deployment, publisher ?? null],
  );
  return new Set(rows.map((row) => row.event));
}

/** The webhooks that see `$1`'s events: its publisher's (for it or all of theirs) and the operator's. */
const MATCHES = `WHERE (w.deployment IS NULL OR w.deployment = $1)
  AND (w.operator OR w.owner = (SELECT publisher FROM deployments WHERE name = $1))`;

/** Queues each event for every webhook that matches its deployment and wants it. */
export async function enqueue(db: Queryable, events: readonly EventToSend[]): Promise<number> {
  let queued = 0;
  for (const item of events) {
    const rows = await db.query(
      `INSERT INTO webhook_deliveries (delivery_id, webhook_id, event_id, event, deployment, body)
       SELECT gen_random_uuid(), w.id, $2, $3, $1, $4 FROM webhooks w ${MATCHES} AND $3 = ANY (w.events)
       RETURNING id`,
      [item.deployment, item.eventId, item.event, item.body],
    );
    queued += rows.length;
  }
  return queued;
}

export const newEventId = (): string => randomUUID();

interface DeliveryRow {
  delivery_id: string;
  webhook_id: number;
  event_id: string;
  event: WebhookEvent;
  deployment: string;
  status: Delivery['status'];
  attempts: number;
  created_at: Date | string;
  next_attempt_at: Date | string;
  last_attempt_at: Date | string | null;
  last_status: number | null;
  last_error: string | null;
  delivered_at: Date | string | null;
}

const DELIVERY_COLUMNS = `delivery_id, webhook_id, event_id, event, deployment, status, attempts, created_at,
  next_attempt_at, last_attempt_at, last_status, last_error, delivered_at`;

const deliveryOf = (row: DeliveryRow): Delivery => ({
  deliveryId: row.delivery_id,
  webhookId: row.webhook_id,
  eventId: row.event_id,
  event: row.event,
  deployment: row.deployment,
  status: row.status,
  attempts: row.attempts,
  createdAt: iso(row.created_at) ?? '',
  nextAttemptAt: row.status === 'pending' ? iso(row.next_attempt_at) : null,
  lastAttemptAt: iso(row.last_attempt_at),
  lastStatus: row.last_status,
  lastError: row.last_error,
  deliveredAt: iso(row.delivered_at),
});

/** A page of deliveries, newest first, of one webhook or of one deployment. */
export async function deliveriesPage(
  db: Queryable,
  of: { webhookId: number } | { deployment: string },
  { after, limit }: { after: number | undefined; limit: number },
): Promise<{ deliveries: Delivery[]; next: number | undefined }> {
  const rows = await db.query<DeliveryRow & { id: number }>(
    `SELECT id, ${DELIVERY_COLUMNS} FROM webhook_deliveries
     WHERE ${'webhookId' in of ? 'webhook_id' : 'deployment'} = $1 AND id < $2 ORDER BY id DESC LIMIT $3`,
    ['webhookId' in of ? of.webhookId : of.deployment, after ?? 2_147_483_647, limit + 1],
  );
  return {
    deliveries: rows.slice(0, limit).map(deliveryOf),
    next: rows.length > limit ? rows[limit - 1]?.id : undefined,
  };
}

/** A delivery claimed by the worker: what it sends and the secret it signs with. */
export interface Claimed {
  id: number;
  deliveryId: string;
  eventId: string;
  event: WebhookEvent;
  url: string;
  secret: string;
  body: string;
  attempts: number;
  createdAt: Date;
}

/**
 * Claims up to `limit` deliveries that are due (or whose lease ran out), each leased for
 * `leaseMs`: another worker (a second registry on the same PostgreSQL server) skips them.
 */
/**
 * Claims up to `limit` due deliveries for `leaseMs`: pending ones, and those whose claim lapsed (a
 * registry stopped mid-attempt). `holding` are the deliveries the caller has in flight: never
 * claimed twice by the same worker, even when its lease lapsed under load.
 */
export async function claimDue(
  db: Queryable,
  limit: number,
  leaseMs: number,
  holding: readonly number[] = [],
): Promise<Claimed[]> {
  const rows = await db.query<{
    id: number;
    delivery_id: string;
    event_id: string;
    event: WebhookEvent;
    url: string;
    secret: string;
    body: string;
    attempts: number;
    created_at: Date | string;
  }>(
    `WITH due AS (
       SELECT id FROM webhook_deliveries
       WHERE status IN ('pending', 'delivering') AND next_attempt_at <= clock_timestamp()
         AND (status = 'pending' OR claimed_until < clock_timestamp()) AND NOT (id = ANY ($3::integer[]))
       ORDER BY next_attempt_at, id LIMIT $1 FOR UPDATE SKIP LOCKED)
     UPDATE webhook_deliveries d SET status = 'delivering', claimed_until = clock_timestamp() + $2 * interval '1 millisecond'
     FROM due, webhooks w WHERE d.id = due.id AND w.id = d.webhook_id
     RETURNING d.id, d.delivery_id, d.event_id, d.event, w.url, w.secret, d.body, d.attempts, d.created_at`,
    [limit, leaseMs, [...holding]],
  );
  return rows.map((row) => ({
    id: row.id,
    deliveryId: row.delivery_id,
    eventId: row.event_id,
    event: row.event,
    url: row.url,
    secret: row.secret,
    body: row.body,
    attempts: row.attempts,
    createdAt: new Date(row.created_at),
  }));
}

/** An attempt's outcome: delivered, to retry at `retryAt`, or failed for good. */
export type AttemptOutcome =
  | { state: 'delivered'; status: number }
  | { state: 'retry' | 'failed'; status: number | null; error: string; retryAt?: Date };

export async function recordAttempt(db: Queryable, id: number, outcome: AttemptOutcome): Promise<void> {
  await db.query(
    `UPDATE webhook_deliveries SET attempts = attempts + 1, last_attempt_at = clock_timestamp(), claimed_until = NULL,
       status = $2, last_status = $3, last_error = $4,
       next_attempt_at = coalesce($5::timestamptz, next_attempt_at),
       delivered_at = CASE WHEN $2 = 'delivered' THEN clock_timestamp() ELSE NULL END
     WHERE id = $1`,
    [
      id,
      outcome.state === 'retry' ? 'pending' : outcome.state,
      outcome.status,
      outcome.state === 'delivered' ? null : outcome.error,
      outcome.state === 'retry' ? (outcome.retryAt?.toISOString() ?? null) : null,
    ],
  );
}

/** Gives a claimed delivery back, its attempt not counted (the registry is stopping). */
export async function releaseClaim(db: Queryable, id: number): Promise<void> {
  await db.query(
    "UPDATE webhook_deliveries SET status = 'pending', claimed_until = NULL WHERE id = $1 AND status = 'delivering'",
    [id],
  );
}

/**
 * When the next delivery is due (pending, or leased until), to wake the worker then; `holding`
 * (the caller's own attempts in flight) are not waited for: their end wakes the worker.
 */
export async function nextDue(db: Queryable, holding: readonly number[] = []): Promise<Date | undefined> {
  const [row] = await db.query<{ at: Date | string | null }>(
    `SELECT min(CASE WHEN status = 'pending' THEN next_attempt_at ELSE greatest(next_attempt_at, claimed_until) END) AS at
     FROM webhook_deliveries WHERE status IN ('pending', 'delivering') AND NOT (id = ANY ($1::integer[]))`,
    [[...holding]],
  );
  return row?.at ? new Date(row.at) : undefined;
}
