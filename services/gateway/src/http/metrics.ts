import { createMetricsRegistry } from '@docfleet/runtime';
import { QUEUES, type QueueClient } from '@docfleet/queue';
import type { NextFunction, Request, Response } from 'express';
import { Gauge, Histogram, type Registry } from 'prom-client';

/**
 * The gateway's Prometheus metrics: request latency by route pattern and status (never by raw
 * path, which would explode cardinality with ids), and queue depth by queue and state, read from
 * Redis when scraped.
 */
export function createGatewayMetrics(queues: QueueClient): {
  registry: Registry;
  middleware: (req: Request, res: Response, next: NextFunction) => void;
} {
  const registry = createMetricsRegistry('gateway');
  const latency = new Histogram({
    name: 'docfleet_http_request_duration_seconds',
    help: 'HTTP request latency by method, route pattern and status',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  new Gauge({
    name: 'docfleet_queue_depth',
    help: 'Jobs per queue and state (wait, active, delayed, failed, prioritized)',
    labelNames: ['queue', 'state'],
    registers: [registry],
    async collect() {
      for (const q of QUEUES) {
        try {
          for (const [state, n] of Object.entries(await queues.depth(q))) this.set({ queue: q, state }, n);
        } catch {
          // Redis unavailable: keep the last values; /readyz reports the outage.
        }
      }
    },
  });
  const middleware = (req: Request, res: Response, next: NextFunction) => {
    const end = latency.startTimer();
    res.on('finish', () => {
      const route =
        (req.route?.path as string | undefined) ??
        (res.statusCode === 404 ? 'unmatched' : req.path.split('/').slice(0, 3).join('/'));
      end({ method: req.method, route, status: String(res.statusCode) });
    });
    next();
  };
  return { registry, middleware };
}
