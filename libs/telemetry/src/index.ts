import { context, propagation, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';

/**
 * Thin wrappers over @opentelemetry/api. Without an SDK registered (no OTEL_EXPORTER_OTLP_ENDPOINT)
 * every call is a no-op, so instrumented code costs nothing.
 */
export const tracer = (name = 'docfleet') => trace.getTracer(name);

// Re-exported so services and libraries instrument through this package only (one API copy).
export {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Span,
} from '@opentelemetry/api';
export { initTelemetry, type Telemetry } from './init';

export type SpanAttributes = Record<string, string | number | boolean | undefined>;

export async function withSpan<T>(
  name: string,
  attrs: SpanAttributes,
  fn: (span: Span) => Promise<T>,
  opts: { kind?: SpanKind } = {},
): Promise<T> {
  return tracer().startActiveSpan(name, { kind: opts.kind ?? SpanKind.INTERNAL }, async (span) => {
    for (const [k, v] of Object.entries(attrs)) if (v !== undefined) span.setAttribute(k, v);
    try {
      return await fn(span);
    } catch (err) {
      span.recordException(err as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
      throw err;
    } finally {
      span.end();
    }
  });
}

/** Serialises the active trace context so it can ride inside a job's data. */
export function injectTraceContext(): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier;
}

/** Runs fn inside the trace context carried by a job. */
export function withExtractedContext<T>(carrier: Record<string, string> | undefined, fn: () => T): T {
  if (!carrier) return fn();
  return context.with(propagation.extract(context.active(), carrier), fn);
}
