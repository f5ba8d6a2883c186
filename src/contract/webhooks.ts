import { z } from 'zod';
import { pageDataSchema } from './paging';

/**
 * What a webhook can be told (this service's addition; the published API has no events). Model
 * events follow the model's settled state; `model.duplicate-found` is sent when a model finishes
 * as the same part as one the library already held (the duplicate rule, ≥ 98).
 */
export const webhookEvents = [
  'model.finished',
  'model.failed',
  'model.unsupported',
  'model.deleted',
  'model.duplicate-found',
  'duplicate-report.ready',
] as const;
export type WebhookEvent = (typeof webhookEvents)[number];

/** What each event means, for the page that lets an admin choose them. */
export const webhookEventWords: Record<WebhookEvent, string> = {
  'model.finished': 'A model finished processing (also finished with parts missing)',
  'model.failed': 'A model could not be processed',
  'model.unsupported': 'A file of a kind the service does not read',
  'model.deleted': 'A model was deleted',
  'model.duplicate-found': 'A model finished as the same part as one already in the library',
  'duplicate-report.ready': 'A duplicates report is ready',
};

/** Only http(s), no user or password in the address, at most 2,000 characters. */
export const webhookUrlSchema = z
  .url({ protocol: /^https?$/, error: 'an http or https address' })
  .max(2000)
  .refine((u) => !new URL(u).username && !new URL(u).password, 'no user name or password in the address');

export const createWebhookRequestSchema = z.object({
  url: webhookUrlSchema,
  events: z.array(z.enum(webhookEvents)).min(1, 'choose at least one event'),
  description: z.string().trim().max(200).optional(),
});
export type CreateWebhookRequest = z.infer<typeof createWebhookRequestSchema>;

export const updateWebhookRequestSchema = createWebhookRequestSchema.partial().extend({ enabled: z.boolean().optional() });
export type UpdateWebhookRequest = z.infer<typeof updateWebhookRequestSchema>;

/** An endpoint as listed: the signing secret is never part of it. */
export const webhookSchema = z.object({
  id: z.string(),
  url: z.string(),
  events: z.array(z.enum(webhookEvents)),
  description: z.string(),
  enabled: z.boolean(),
  createdAt: z.string(),
  /** The last delivery's outcome, if any. */
  lastDelivery: z.object({ status: z.string(), at: z.string() }).nullable(),
});
export type Webhook = z.infer<typeof webhookSchema>;

export const webhookResponseSchema = z.object({ webhook: webhookSchema });
/** The one answer that carries the secret (`whsec_…`, the Standard Webhooks format): shown once. */
export const createdWebhookResponseSchema = z.object({ webhook: webhookSchema, secret: z.string() });
export const webhookListResponseSchema = z.object({ webhooks: z.array(webhookSchema) });

export const deliveryStatuses = ['pending', 'retrying', 'delivered', 'failed', 'cancelled'] as const;

export const webhookDeliverySchema = z.object({
  id: z.string(),
  webhookId: z.string(),
  event: z.string(),
  status: z.enum(deliveryStatuses),
  attempts: z.number().int().nonnegative(),
  /** The receiver's last HTTP status, if it answered. */
  responseStatus: z.number().int().nullable(),
  /** Why the last attempt failed, in words. */
  error: z.string().nullable(),
  createdAt: z.string(),
  deliveredAt: z.string().nullable(),
  /** The body sent (the same for every attempt). */
  payload: z.unknown(),
});
export type WebhookDelivery = z.infer<typeof webhookDeliverySchema>;
export const webhookDeliveryListResponseSchema = z.object({ deliveries: z.array(webhookDeliverySchema), pageData: pageDataSchema });
