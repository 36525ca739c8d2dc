export { TEMPLATE_DB, TEST_DB_PREFIX, adminUrl, createTestDb, keptTestDb, rebuildTemplate, testDbUrl } from './db';
export type { TestDb } from './db';
export { freePort, startPrivateRedis } from './private-redis';
export { startPrivatePostgres } from './private-postgres';
export type { PrivatePostgres } from './private-postgres';
export type { PrivateRedis } from './private-redis';
export { multipartBody, rawRequest } from './raw-http';
export type { RawExchange, RawResponse } from './raw-http';
export {
  ROOT,
  nodeChildren,
  spawnService,
  spawnWorker,
  startServiceProcess,
  stopProcess,
  workerEnvOf,
} from './service-process';
export type {
  ServiceProcess,
  StartedProcess,
  StartProcessOptions,
  WorkerProcess,
  WorkerTarget,
} from './service-process';
export { CORPUS, corpus, gatewayClient, spawnGateway } from './gateway';
export type { GatewayProcess, Res, SpawnGatewayOptions } from './gateway';
export { FLEET_WORKERS, INVOICE_PDF, ONLINE_ENV, offlineEnv, startFleet } from './fleet';
export type { Fleet } from './fleet';
export { spawnFleetService } from './fleet-service';
export type { FleetServiceProcess } from './fleet-service';
export { startWebhookReceiver } from './webhook-receiver';
export type { ReceivedHook, WebhookReceiver } from './webhook-receiver';
export { creditInvariants } from './credits';
export { privateQueues } from './queues';
export { seedFile } from './files';
export type { SeededFile } from './files';
export type { PrivateQueues } from './queues';
export { describeShardState, isAlive, shardState, workerFleet } from './worker-fleet';
export type { ShardState, WorkerFleet } from './worker-fleet';
export { combine, densePdf, longPdf, pageMark, repeatPages, textPdf } from './pdfs';
export {
  addManifest,
  addVersion,
  indexDeps,
  indexNow,
  seedAndIndex,
  seedRankingFiles,
  seedParsedFile,
  seg,
} from './search-index';
export type { SearchIndexEnv, SegIn, Seeded } from './search-index';
export { rng, syntheticVocabulary, zipfText } from './zipf-text';
export { memoryAfterGc, retainedBytes } from './memory';
export { WaitTimeoutError, waitUntil } from './wait';
export type { WaitOptions } from './wait';
