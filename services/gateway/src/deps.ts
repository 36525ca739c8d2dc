import type { GatewayEnv } from '@docfleet/config';
import type { Db } from '@docfleet/db';
import type { Logger } from '@docfleet/logger';
import { ModelRegistry, readModelConfig } from '@docfleet/models';
import type { QueueClient } from '@docfleet/queue';
import type { StorageDriver } from '@docfleet/storage';
import type { Redis } from 'ioredis';

/** Everything a route or domain function may use, built once in main.ts (or by a test). */
export interface Deps {
  env: GatewayEnv;
  db: Db;
  storage: StorageDriver;
  queues: QueueClient;
  redis: Redis;
  logger: Logger;
  /** Model providers (resolves model_id); defaults to the environment's configuration. */
  models?: ModelRegistry;
}

let fallbackModels: ModelRegistry | undefined;

/** The model registry of the deployment (main.ts builds it at start-up; tests may pass their own). */
export function modelsOf(deps: Pick<Deps, 'models'>): ModelRegistry {
  return deps.models ?? (fallbackModels ??= new ModelRegistry(readModelConfig(process.env)));
}
