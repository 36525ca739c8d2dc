import type { GatewayEnv } from '@docfleet/config';
import type { Db } from '@docfleet/db';
import type { Logger } from '@docfleet/logger';
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
}
