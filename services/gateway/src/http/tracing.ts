import { ROOT_CONTEXT, SpanKind, SpanStatusCode, context, propagation, trace, tracer } from '@docfleet/telemetry';
import type { NextFunction, Request, Response } from 'express';

/**
 * One SERVER span per HTTP request, continuing a caller's W3C `traceparent` when it sends one.
 * Everything the request does runs inside it, so the jobs it enqueues (QueueClient.enqueue) carry
 * it to the workers. The name is set when the response finishes, from the route pattern (never
 * the raw path, whose ids would make every name unique). Without an SDK (no
 * OTEL_EXPORTER_OTLP_ENDPOINT) the span is the API's no-op.
 */
export function tracingMiddleware() {
  return (req: Request, res: Response, next: NextFunction) => {
    const parent = propagation.extract(ROOT_CONTEXT, req.headers);
    const span = tracer('docfleet-gateway').startSpan(
      `${req.method}`,
      {
        kind: SpanKind.SERVER,
        attributes: { 'http.request.method': req.method, 'url.path': req.path, 'url.scheme': req.protocol },
      },
      parent,
    );
    const ctx = trace.setSpan(parent, span);
    // Body parsers (multer/busboy, express.json) resume the chain from stream events whose async
    // context is the socket's; binding the request and response emitters keeps this span active.
    context.bind(ctx, req);
    context.bind(ctx, res);
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      const route = (req.route?.path as string | undefined) ?? (res.statusCode === 404 ? 'unmatched' : undefined);
      if (route) {
        span.setAttribute('http.route', route);
        span.updateName(`${req.method} ${route}`);
      }
      span.setAttribute('http.response.status_code', res.statusCode);
      if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    };
    res.once('finish', end);
    res.once('close', end);
    context.with(ctx, next);
  };
}
