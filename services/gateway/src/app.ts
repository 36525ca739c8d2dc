import express, { Router, type Request, type Response } from 'express';
import { Gauge } from 'prom-client';
import { observeCredits } from '@docfleet/billing';
import { createCreditMetrics } from '@docfleet/runtime';
import type { Deps } from './deps';
import { ApiRoutes } from './http/route';
import { authMiddleware, errorHandler, notFound, rateLimit, requestContext } from './http/middleware';
import { createGatewayMetrics } from './http/metrics';
import { tracingMiddleware } from './http/tracing';
import { bodyGuard, jsonDepthLimit } from './http/body-guard';
import { consoleRouter } from './http/console';
import { apiKeyRoutes, loginRoute } from './routes/auth.routes';
import { billingRoutes } from './routes/billing.routes';
import { fileRoutes } from './routes/files.routes';
import { knowledgeBaseRoutes } from './routes/knowledge-bases.routes';
import { searchRoutes } from './routes/search.routes';
import { parseRoutes } from './routes/parse.routes';
import { artifactRoutes } from './routes/artifacts.routes';
import { operationRoutes } from './routes/operations.routes';
import { extractRunRoutes } from './routes/extract-runs.routes';
import { extractSchemaRoutes } from './routes/extract-schemas.routes';
import { extractJobRoutes } from './routes/extract-jobs.routes';
import { splitRoutes } from './routes/split.routes';
import { classifyEditRoutes } from './routes/classify-edit.routes';
import { webhookRoutes } from './routes/webhooks.routes';
import { eventRoutes } from './routes/events.routes';
import { EventHub } from './domain/events/event-hub';

export const API_VERSION = '0.1.0';

/** Builds the express app without listening, so tests can mount it. */
export function buildApp(deps: Deps) {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', deps.env.TRUST_PROXY);
  app.use(tracingMiddleware());
  app.use(requestContext(deps.logger));
  const metrics = createGatewayMetrics(deps.queues);
  observeCredits(createCreditMetrics(metrics.registry));
  app.use(metrics.middleware);
  // Scraped by Prometheus inside the cluster; the production ingress routes only /v1 and /healthz.
  app.get('/metrics', async (_req, res) => {
    res.setHeader('content-type', metrics.registry.contentType);
    res.end(await metrics.registry.metrics());
  });

  app.get('/healthz', (_req, res) => void res.json({ status: 'ok' }));
  app.get('/readyz', async (_req: Request, res: Response) => {
    const checks: Record<string, string> = {};
    // Each check answers within 2 s: a probe must never hang on a server that is restarting.
    const bounded = <T>(p: Promise<T>) =>
      Promise.race([
        p,
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no answer within 2 s')), 2000).unref()),
      ]);
    try {
      await bounded(deps.db.$queryRaw`SELECT 1`);
      checks.database = 'ok';
    } catch (e) {
      checks.database = (e as Error).message;
    }
    try {
      checks.redis = (await bounded(deps.redis.ping())) === 'PONG' ? 'ok' : 'unexpected reply';
    } catch (e) {
      checks.redis = (e as Error).message;
    }
    const ok = Object.values(checks).every((v) => v === 'ok');
    res.status(ok ? 200 : 503).json({ status: ok ? 'ok' : 'unavailable', checks });
  });

  const json = express.json({ limit: deps.env.MAX_BODY_BYTES });
  const publicRouter = Router();
  const privateRouter = Router();
  const publicRoutes = new ApiRoutes(publicRouter);
  const routes = new ApiRoutes(privateRouter);

  loginRoute(publicRoutes, deps);
  knowledgeBaseRoutes(routes, deps);
  fileRoutes(routes, deps);
  billingRoutes(routes, deps);
  apiKeyRoutes(routes, deps);
  searchRoutes(routes, deps);
  parseRoutes(routes, deps);
  artifactRoutes(routes, deps);
  operationRoutes(routes, deps);
  extractRunRoutes(routes, deps);
  extractSchemaRoutes(routes, deps);
  extractJobRoutes(routes, deps);
  splitRoutes(routes, deps);
  classifyEditRoutes(routes, deps);
  webhookRoutes(routes, deps);
  // One Redis subscription per process for every event stream it holds, taken at the first stream.
  let hub: EventHub | undefined;
  eventRoutes(routes, deps, () => (hub ??= new EventHub(deps.redis, deps.env.QUEUE_PREFIX, deps.logger)));
  new Gauge({
    name: 'docfleet_event_streams_open',
    help: 'Event streams (GET /v1/events/stream) this process holds open',
    registers: [metrics.registry],
    collect() {
      this.set(hub?.size ?? 0);
    },
  });
  /** Ends the open event streams (shutdown: a stream would otherwise hold server.close open). */
  const closeStreams = async () => {
    await hub?.close();
  };

  // One OpenAPI document from both registries: generated from the validating schemas.
  const openapi = () => {
    const doc = routes.openapi(API_VERSION) as {
      paths?: Record<string, unknown>;
      components?: Record<string, Record<string, unknown>>;
    };
    const pub = publicRoutes.openapi(API_VERSION) as typeof doc;
    doc.paths = { ...pub.paths, ...doc.paths };
    doc.components = { ...doc.components, schemas: { ...pub.components?.schemas, ...doc.components?.schemas } };
    return doc;
  };
  let cached: unknown;
  app.get('/v1/openapi.json', (_req, res) => void res.json((cached ??= openapi())));

  // The web console (static files; it calls the API like any client).
  const consoleApp = consoleRouter(deps.env.CONSOLE_DIR, deps.logger);
  if (consoleApp) app.use(consoleApp);

  // Unreadable and over-deep bodies are refused before credentials are looked up.
  app.use(bodyGuard(), json, jsonDepthLimit(), publicRouter);
  // Credentials are resolved for every /v1 call that carries them; routes demand a principal,
  // so an unknown route still answers route_not_found.
  app.use(
    '/v1',
    authMiddleware(deps.db, { cacheTtlSeconds: deps.env.API_KEY_CACHE_TTL_SECONDS }),
    rateLimit(deps.redis, deps.env.RATE_LIMIT_POINTS, deps.env.RATE_LIMIT_WINDOW_SECONDS, deps.env.QUEUE_PREFIX, {
      batch: deps.env.RATE_LIMIT_LOCAL_BATCH,
    }),
  );
  app.use(privateRouter);
  app.use(notFound);
  app.use(errorHandler);
  return { app, openapi, closeStreams };
}
