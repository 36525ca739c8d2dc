import { z } from 'zod';
import { JsonObject, Timestamp, Uuid } from './common';

// WIRE CONTRACT: event type names are what receivers branch on. Never rename one; add a new one.
export const WEBHOOK_EVENT_TYPES = [
  'file.uploaded',
  'parse.job.completed',
  'parse.job.failed',
  'parse.job.cancelled',
  'extract.job.completed',
  'extract.job.failed',
  'extract.job.cancelled',
  'operation.completed',
  'operation.failed',
  'operation.cancelled',
  'index.updated',
  'credits.low',
  'webhook.test',
  'webhook.endpoint.disabled',
] as const;
export const WebhookEventType = z.enum(WEBHOOK_EVENT_TYPES);
export type WebhookEventType = z.infer<typeof WebhookEventType>;

/** What a receiver gets (the body of a delivery) and what the event stream sends as `data:`. */
export const WebhookEvent = z.object({
  id: Uuid.describe('event id; also the `webhook-id` header, the same on every redelivery'),
  type: WebhookEventType,
  created_at: Timestamp,
  org_id: Uuid,
  data: JsonObject.describe('the resource as the API returns it'),
});
export type WebhookEvent = z.infer<typeof WebhookEvent>;

const WebhookUrl = z.string().min(1).max(2048).describe('https URL (http only where WEBHOOK_ALLOW_HTTP=true)');
const Events = z
  .array(WebhookEventType)
  .max(WEBHOOK_EVENT_TYPES.length)
  .describe('event types to deliver; empty or absent means every type');

export const WebhookEndpoint = z.object({
  id: Uuid,
  url: z.string(),
  events: z.array(WebhookEventType),
  description: z.string().nullable(),
  enabled: z.boolean(),
  /** Set when deliveries failed for 3 days and the endpoint was turned off (PATCH enabled=true turns it on). */
  disabled_at: Timestamp.nullable(),
  disabled_reason: z.string().nullable(),
  failing_since: Timestamp.nullable(),
  secret_rotated_at: Timestamp.nullable(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type WebhookEndpoint = z.infer<typeof WebhookEndpoint>;

export const CreateWebhookBody = z.object({
  url: WebhookUrl,
  events: Events.optional(),
  description: z.string().max(500).nullable().optional(),
  enabled: z.boolean().optional(),
});
export const UpdateWebhookBody = z.object({
  url: WebhookUrl.optional(),
  events: Events.optional(),
  description: z.string().max(500).nullable().optional(),
  enabled: z.boolean().optional(),
});

/** Create and rotate-secret answers: the only times the secret is shown. */
export const WebhookWithSecret = z.object({
  webhook: WebhookEndpoint,
  secret: z.string().describe('whsec_<base64>; shown once'),
});
export const WebhookOne = z.object({ webhook: WebhookEndpoint });
export const WebhookList = z.object({ webhooks: z.array(WebhookEndpoint) });
export const WebhookIdParams = z.object({ webhookId: Uuid });
export const WebhookDeliveryParams = z.object({ webhookId: Uuid, deliveryId: Uuid });

export const WebhookDeliveryAttempt = z.object({
  attempt: z.number().int(),
  status_code: z.number().int().nullable(),
  error: z.string().nullable(),
  duration_ms: z.number().int(),
  created_at: Timestamp,
});
export const WebhookDelivery = z.object({
  id: Uuid,
  event_id: Uuid,
  event_type: WebhookEventType,
  status: z.enum(['pending', 'succeeded', 'failed']),
  attempts: z.number().int(),
  next_attempt_at: Timestamp.nullable().describe('null once it succeeded or gave up'),
  last_status_code: z.number().int().nullable(),
  last_error: z.string().nullable(),
  last_duration_ms: z.number().int().nullable(),
  attempt_log: z.array(WebhookDeliveryAttempt).describe('every attempt, oldest first (at most 50)'),
  created_at: Timestamp,
  completed_at: Timestamp.nullable(),
});
export type WebhookDelivery = z.infer<typeof WebhookDelivery>;
export const WebhookDeliveryQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().optional(),
  status: z.enum(['pending', 'succeeded', 'failed']).optional(),
});
export const WebhookDeliveryPage = z.object({
  deliveries: z.array(WebhookDelivery),
  next_cursor: z.string().nullable(),
});
export const WebhookTestAnswer = z.object({ event_id: Uuid });
export const WebhookDeliveryOne = z.object({ delivery: WebhookDelivery });

export const CreditAlertBody = z.object({
  credits_low_threshold: z.number().int().min(0).nullable().describe('null turns credits.low off'),
});
export const CreditAlert = z.object({ credits_low_threshold: z.number().int().nullable() });

/** GET /v1/events/stream query: every filter is optional; several types are comma-separated. */
export const EventStreamQuery = z.object({
  knowledge_base_id: Uuid.optional(),
  file_id: Uuid.optional(),
  types: z.string().max(2000).optional().describe('comma-separated event types, plus `job.progress`'),
  last_event_id: z
    .string()
    .regex(/^\d{1,19}$/)
    .optional()
    .describe('resume after this event (the `Last-Event-ID` header wins; for clients that cannot set headers)'),
});
/** A progress event of the stream (not a webhook: carried through Redis, never stored). */
export const JobProgressEvent = z.object({
  type: z.literal('job.progress'),
  org_id: Uuid,
  data: z.object({
    job_id: Uuid,
    kind: z.enum(['parse', 'extract', 'operation']),
    file_id: Uuid.nullable(),
    knowledge_base_id: Uuid.nullable(),
    stage: z.string().nullable(),
    percent: z.number().int(),
    status: z
      .enum(['running', 'completed', 'failed', 'cancelled'])
      .describe(
        "`running` while the job moves; a job's last message, sent once it ended, says how: `completed` (percent 100), `failed` or `cancelled` (the percent it reached)",
      ),
  }),
});
export type JobProgressEvent = z.infer<typeof JobProgressEvent>;

/** One `data:` line of the stream: a stored event (with an `id:` line) or a job's progress (without). */
export const EventStreamMessage = z.union([WebhookEvent, JobProgressEvent]);
export type EventStreamMessage = z.infer<typeof EventStreamMessage>;
