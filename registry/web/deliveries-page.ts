// A deployment's webhook deliveries as a page (/deployments/NAME/deliveries), newest first, a page
// at a time, server-rendered and script-free: the event, its status, attempts and the endpoint's
// last answer. Not the webhook's URL (it may hold a path a receiver treats as secret), nor any
// secret: who registered a webhook reads its URL through the API.
import type { Delivery } from '../webhooks/store.ts';
import { html, page } from './html.ts';
import { pager, type Paging } from './pages.ts';

const lastAnswer = (delivery: Delivery): string =>
  delivery.lastStatus !== null
    ? `HTTP ${delivery.lastStatus}`
    : (delivery.lastError ?? (delivery.attempts === 0 ? 'not tried yet' : ''));

export function deliveriesPage(deployment: string, deliveries: readonly Delivery[], paging: Paging): string {
  return page(
    `${deployment}: webhook deliveries`,
    html`<h1>Webhook deliveries of <a href="/deployments/${deployment}">${deployment}</a></h1>
      <p>
        Each event the registry sent to a webhook watching this deployment, newest first: delivered (the
        endpoint answered 2xx), pending (another attempt is due), delivering, or failed (no attempt left).
        Each is signed with its webhook's secret (X-Registry-Signature-256).
      </p>
      ${
        deliveries.length === 0
          ? html`<p id="no-deliveries">
              No delivery${paging.first !== undefined ? ' on this page' : ' yet'}.
            </p>`
          : html`<table id="deliveries">
              <thead>
                <tr>
                  <th>created</th>
                  <th>event</th>
                  <th>webhook</th>
                  <th>status</th>
                  <th>attempts</th>
                  <th>last answer</th>
                  <th>last attempt</th>
                  <th>delivery</th>
                </tr>
              </thead>
              <tbody>
                ${deliveries.map(
                  (delivery) =>
                    html`<tr class="delivery-${delivery.status}">
                      <td>${delivery.createdAt}</td>
                      <td><code>${delivery.event}</code></td>
                      <td>${delivery.webhookId}</td>
                      <td>
                        ${delivery.status}${delivery.nextAttemptAt ? html`, next at ${delivery.nextAttemptAt}` : ''}
                      </td>
                      <td>${delivery.attempts}</td>
                      <td>${lastAnswer(delivery)}</td>
                      <td>${delivery.lastAttemptAt ?? ''}</td>
                      <td class="mono">${delivery.deliveryId}</td>
                    </tr>`,
                )}
              </tbody>
            </table>`
      }
      ${pager(paging)}`,
  );
}
