export { TEMPLATE_DB, TEST_DB_PREFIX, adminUrl, createTestDb, rebuildTemplate, testDbUrl } from './db';
export type { TestDb } from './db';
export { freePort, startPrivateRedis } from './private-redis';
export { startPrivatePostgres } from './private-postgres';
export type { PrivatePostgres } from './private-postgres';
export type { PrivateRedis } from './private-redis';
export { multipartBody, rawRequest } from './raw-http';
export type { RawExchange, RawResponse } from './raw-http';
