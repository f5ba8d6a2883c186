import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { pageDataFor, pageQuerySchema } from '../../../contract/paging';
import {
  createWebhookRequestSchema,
  createdWebhookResponseSchema,
  deliveryStatuses,
  updateWebhookRequestSchema,
  webhookDeliveryListResponseSchema,
  webhookEvents,
  webhookListResponseSchema,
  webhookResponseSchema,
  type Webhook,
  type WebhookDelivery,
} from '../../../contract/webhooks';
import { requireRole } from '../../http/auth';
import { InvalidInput, NotFound } from '../../http/errors';
import type { Database } from '../../store/schema';
import { createWebhook, deleteWebhook, listDeliveries, listWebhooks, updateWebhook } from '../../store/webhooks';
import { addressProblem } from '../../webhooks/address-guard';
import type { EventSink } from '../../webhooks/events';

const idParams = z.object({ id: z.string() });

type WebhookRow = Awaited<ReturnType<typeof listWebhooks>>[number];
const iso = (d: Date | string) => (d instanceof Date ? d : new Date(d)).toISOString();

function toWebhook(row: WebhookRow): Webhook {
  const known = (webhookEvents as readonly string[]).filter((e) => (row.events as string[]).includes(e)) as Webhook['events'];
  return {
    id: row.id,
    url: row.url,
    events: known,
    description: row.description,
    enabled: row.enabled,
    createdAt: iso(row.created_at),
    lastDelivery: row.last_delivery ? { status: row.last_delivery.status, at: iso(row.last_delivery.at) } : null,
  };
}

/**
 * `/v2/webhooks` (this service's addition): endpoints an admin registers for the tenant, told of
 * model and report events by signed POSTs (Standard Webhooks: webhook-id, webhook-timestamp,
 * webhook-signature), with a delivery log. README: src/service/README.md#webhooks.
 */
export async function webhookRoutes(
  parent: FastifyInstance,
  { db, events, allowPrivate }: { db: Kysely<Database>; events: EventSink; allowPrivate: boolean },
) {
  const app = parent.withTypeProvider<ZodTypeProvider>();
  const tags = ['Webhooks'];

  async function checkAddress(url: string) {
    const problem = await addressProblem(url, allowPrivate);
    if (problem) throw new InvalidInput(`This address cannot receive webhooks: ${problem}.`, { parameter: 'url' });
  }
  async function oneOr404(tenantId: number, id: string): Promise<Webhook> {
    const [row] = await listWebhooks(db, tenantId, id);
    if (!row) throw new NotFound(`No webhook ${id}.`);
    return toWebhook(row);
  }

  app.post(
    '/',
    {
      schema: {
        tags,
        summary: 'Register an endpoint (the signing secret is answered once)',
        description:
          'Events: ' +
          webhookEvents.join(', ') +
          '. Addresses in private, loopback and link-local ranges are refused unless the deployment sets WEBHOOKS_ALLOW_PRIVATE.',
        body: createWebhookRequestSchema,
        response: { 201: createdWebhookResponseSchema },
      },
    },
    async (request, reply) => {
      const auth = requireRole(request, 'admin');
      const { url, events: wanted, description } = request.body;
      await checkAddress(url);
      const { id, secret } = await createWebhook(db, {
        tenantId: auth.tenantId,
        url,
        events: [...new Set(wanted)],
        description: description ?? '',
        createdBy: auth.userId,
      });
      return reply.status(201).send({ webhook: await oneOr404(auth.tenantId, id), secret });
    },
  );

  app.get('/', { schema: { tags, summary: 'The tenant’s endpoints', response: { 200: webhookListResponseSchema } } }, async (request) => {
    const auth = requireRole(request, 'admin');
    return { webhooks: (await listWebhooks(db, auth.tenantId)).map(toWebhook) };
  });

  app.get(
    '/:id',
    { schema: { tags, summary: 'One endpoint', params: idParams, response: { 200: webhookResponseSchema } } },
    async (request) => {
      const auth = requireRole(request, 'admin');
      return { webhook: await oneOr404(auth.tenantId, request.params.id) };
    },
  );

  app.patch(
    '/:id',
    {
      schema: {
        tags,
        summary: 'Change an endpoint’s address, events, description, or turn it off and on',
        params: idParams,
        body: updateWebhookRequestSchema,
        response: { 200: webhookResponseSchema },
      },
    },
    async (request) => {
      const auth = requireRole(request, 'admin');
      const change = request.body;
      if (change.url !== undefined) await checkAddress(change.url);
      const events = change.events ? [...new Set(change.events)] : undefined;
      if (!(await updateWebhook(db, auth.tenantId, request.params.id, { ...change, events })))
        throw new NotFound(`No webhook ${request.params.id}.`);
      return { webhook: await oneOr404(auth.tenantId, request.params.id) };
    },
  );

  app.delete(
    '/:id',
    { schema: { tags, summary: 'Delete an endpoint and its delivery log', params: idParams, response: { 204: z.null() } } },
    async (request, reply) => {
      const auth = requireRole(request, 'admin');
      if (!(await deleteWebhook(db, auth.tenantId, request.params.id))) throw new NotFound(`No webhook ${request.params.id}.`);
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/:id/ping',
    {
      schema: {
        tags,
        summary: 'Send a `ping` event to this endpoint now (to check the receiver and its signature check)',
        params: idParams,
        response: { 202: z.object({ queued: z.literal(true) }) },
      },
    },
    async (request, reply) => {
      const auth = requireRole(request, 'admin');
      const hook = await oneOr404(auth.tenantId, request.params.id);
      await events.ping(db, auth.tenantId, hook.id);
      return reply.status(202).send({ queued: true as const });
    },
  );

  app.get(
    '/:id/deliveries',
    {
      schema: {
        tags,
        summary: 'The endpoint’s delivery log, newest first',
        description: `status: ${deliveryStatuses.join(', ')}. A failing receiver is tried 7 times over about two minutes.`,
        params: idParams,
        querystring: pageQuerySchema,
        response: { 200: webhookDeliveryListResponseSchema },
      },
    },
    async (request) => {
      const auth = requireRole(request, 'admin');
      await oneOr404(auth.tenantId, request.params.id);
      const { rows, total } = await listDeliveries(db, auth.tenantId, request.params.id, request.query);
      const deliveries: WebhookDelivery[] = rows.map((r) => ({
        id: r.id,
        webhookId: r.webhook_id,
        event: r.event,
        status: (deliveryStatuses as readonly string[]).includes(r.status) ? (r.status as WebhookDelivery['status']) : 'pending',
        attempts: r.attempts,
        responseStatus: r.response_status,
        error: r.error,
        createdAt: iso(r.created_at),
        deliveredAt: r.delivered_at ? iso(r.delivered_at) : null,
        payload: r.payload,
      }));
      return { deliveries, pageData: pageDataFor(total, request.query) };
    },
  );
}
