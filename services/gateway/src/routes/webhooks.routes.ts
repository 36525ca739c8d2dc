import { requireOrgAdmin } from '@docfleet/auth';
import { api } from '@docfleet/contracts';
import {
  createEndpoint,
  deleteEndpoint,
  getCreditAlert,
  getEndpoint,
  listDeliveries,
  listEndpoints,
  redeliver,
  rotateSecret,
  sendTestEvent,
  serializeDelivery,
  serializeEndpoint,
  setCreditAlert,
  updateEndpoint,
} from '@docfleet/webhooks';
import type { Deps } from '../deps';
import type { ApiRoutes } from '../http/route';

const tags = ['Webhooks'];
const WHAT = 'Webhook endpoints';

/** Webhook endpoints (docs/webhooks.md): organisation admins and API keys only. */
export function webhookRoutes(r: ApiRoutes, deps: Deps) {
  const policy = { allowHttp: deps.env.WEBHOOK_ALLOW_HTTP, allowPrivate: deps.env.WEBHOOK_ALLOW_PRIVATE };
  const adminErrors = ['permission_required'];
  const oneErrors = [...adminErrors, 'webhook_not_found'];

  r.add(
    {
      method: 'post',
      path: '/v1/webhooks',
      summary: 'Create a webhook endpoint; the signing secret is shown once',
      tags,
      body: api.CreateWebhookBody,
      responses: { 201: { description: 'created', schema: api.WebhookWithSecret } },
      errors: [...adminErrors, 'invalid_webhook_url'],
    },
    async ({ body, principal }) => {
      requireOrgAdmin(principal, WHAT);
      return { status: 201, body: await createEndpoint(deps.db, principal.orgId, body, policy) };
    },
  );
  r.add(
    {
      method: 'get',
      path: '/v1/webhooks',
      summary: "The organisation's webhook endpoints",
      tags,
      responses: { 200: { description: 'endpoints', schema: api.WebhookList } },
      errors: adminErrors,
    },
    async ({ principal }) => {
      requireOrgAdmin(principal, WHAT);
      return { body: { webhooks: await listEndpoints(deps.db, principal.orgId) } };
    },
  );
  r.add(
    {
      method: 'get',
      path: '/v1/webhooks/:webhookId',
      summary: 'One webhook endpoint',
      tags,
      params: api.WebhookIdParams,
      responses: { 200: { description: 'endpoint', schema: api.WebhookOne } },
      errors: oneErrors,
    },
    async ({ params, principal }) => {
      requireOrgAdmin(principal, WHAT);
      return { body: { webhook: serializeEndpoint(await getEndpoint(deps.db, principal.orgId, params.webhookId)) } };
    },
  );
  r.add(
    {
      method: 'patch',
      path: '/v1/webhooks/:webhookId',
      summary: 'Change url, events, description or enabled (enabled=true also clears an automatic disable)',
      tags,
      params: api.WebhookIdParams,
      body: api.UpdateWebhookBody,
      responses: { 200: { description: 'endpoint', schema: api.WebhookOne } },
      errors: [...oneErrors, 'invalid_webhook_url'],
    },
    async ({ params, body, principal }) => {
      requireOrgAdmin(principal, WHAT);
      return { body: { webhook: await updateEndpoint(deps.db, principal.orgId, params.webhookId, body, policy) } };
    },
  );
  r.add(
    {
      method: 'delete',
      path: '/v1/webhooks/:webhookId',
      summary: 'Delete a webhook endpoint and its deliveries',
      tags,
      params: api.WebhookIdParams,
      responses: { 204: { description: 'deleted' } },
      errors: oneErrors,
    },
    async ({ params, principal, res }) => {
      requireOrgAdmin(principal, WHAT);
      await deleteEndpoint(deps.db, principal.orgId, params.webhookId);
      res.status(204).end();
    },
  );
  r.add(
    {
      method: 'post',
      path: '/v1/webhooks/:webhookId/rotate-secret',
      summary: 'A new signing secret (shown once); the previous one also signs for 24 h',
      tags,
      params: api.WebhookIdParams,
      responses: { 200: { description: 'rotated', schema: api.WebhookWithSecret } },
      errors: oneErrors,
    },
    async ({ params, principal }) => {
      requireOrgAdmin(principal, WHAT);
      return { body: await rotateSecret(deps.db, principal.orgId, params.webhookId) };
    },
  );
  r.add(
    {
      method: 'post',
      path: '/v1/webhooks/:webhookId/test',
      summary: 'Send a webhook.test event to this endpoint',
      tags,
      params: api.WebhookIdParams,
      responses: { 202: { description: 'queued', schema: api.WebhookTestAnswer } },
      errors: oneErrors,
    },
    async ({ params, principal }) => {
      requireOrgAdmin(principal, WHAT);
      return { status: 202, body: { event_id: await sendTestEvent(deps.db, principal.orgId, params.webhookId) } };
    },
  );
  r.add(
    {
      method: 'get',
      path: '/v1/webhooks/:webhookId/deliveries',
      summary: 'Deliveries of this endpoint, newest first, each with every attempt',
      tags,
      params: api.WebhookIdParams,
      query: api.WebhookDeliveryQuery,
      responses: { 200: { description: 'page of deliveries', schema: api.WebhookDeliveryPage } },
      errors: [...oneErrors, 'invalid_request'],
    },
    async ({ params, query, principal }) => {
      requireOrgAdmin(principal, WHAT);
      return { body: await listDeliveries(deps.db, principal.orgId, params.webhookId, query) };
    },
  );
  r.add(
    {
      method: 'post',
      path: '/v1/webhooks/:webhookId/deliveries/:deliveryId/redeliver',
      summary: 'Send a delivery again now (same webhook-id); its retry window starts again',
      tags,
      params: api.WebhookDeliveryParams,
      responses: { 202: { description: 'queued', schema: api.WebhookDeliveryOne } },
      errors: [...oneErrors, 'webhook_delivery_not_found'],
    },
    async ({ params, principal }) => {
      requireOrgAdmin(principal, WHAT);
      const d = await redeliver(deps.db, principal.orgId, params.webhookId, params.deliveryId);
      // The workers' poll would find it too; the doorbell makes it immediate.
      await deps.queues
        .enqueue('webhook.wake', { reason: 'redeliver' }, { jobId: `whw-${d.id}-r${Date.now()}` })
        .catch((err) =>
          deps.logger.warn({ err, delivery_id: d.id }, 'redelivery doorbell not rung; the poll sends it'),
        );
      return { status: 202, body: { delivery: serializeDelivery(d) } };
    },
  );
  r.add(
    {
      method: 'get',
      path: '/v1/billing/credits-alert',
      summary: 'The credits.low threshold of the organisation (null: off)',
      tags: ['Billing'],
      responses: { 200: { description: 'threshold', schema: api.CreditAlert } },
      errors: adminErrors,
    },
    async ({ principal }) => {
      requireOrgAdmin(principal, 'The credits alert');
      return { body: await getCreditAlert(deps.db, principal.orgId) };
    },
  );
  r.add(
    {
      method: 'put',
      path: '/v1/billing/credits-alert',
      summary: 'Set the credits.low threshold: one event each time available credits fall under it',
      tags: ['Billing'],
      body: api.CreditAlertBody,
      responses: { 200: { description: 'threshold', schema: api.CreditAlert } },
      errors: adminErrors,
    },
    async ({ body, principal }) => {
      requireOrgAdmin(principal, 'The credits alert');
      return { body: await setCreditAlert(deps.db, principal.orgId, body.credits_low_threshold) };
    },
  );
}
