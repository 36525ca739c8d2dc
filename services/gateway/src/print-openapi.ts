// Writes the gateway's OpenAPI document (what GET /v1/openapi.json serves) to stdout, built from the
// routes without a database or Redis: routes only hold their deps until a request comes.
// `pnpm lint:openapi` runs it as a process and validates what it prints.
import { defineEnv, gatewayEnv } from '@docfleet/config';
import { buildApp } from './app';
import type { Deps } from './deps';

const env = defineEnv(gatewayEnv, { ...process.env, LOG_LEVEL: 'silent' }, { exit: false });
const doc = buildApp({
  env,
  db: {},
  storage: {},
  queues: {},
  redis: {},
  logger: { child: () => ({}), info: () => undefined, warn: () => undefined },
} as unknown as Deps).openapi();
process.stdout.write(`${JSON.stringify(doc)}\n`);
