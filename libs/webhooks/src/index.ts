// Webhooks and the event stream: the outbox every state change writes its event to, the
// endpoints, the deliveries, the URL policy against server-side request forgery and the retry
// schedule. The only code that writes the webhook_* tables (the worker's delivery loop included).
export * from './outbox';
export * from './secret';
export * from './ssrf';
export * from './schedule';
export * from './endpoints';
export * from './deliveries';
export * from './credits-low';
export * from './progress';
export * from './relay';
export * from './delivery-state';
export * from './state-events';
export * from './retention';
