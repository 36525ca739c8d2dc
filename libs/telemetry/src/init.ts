import { context, propagation, trace } from '@opentelemetry/api';
import type { NodeSDK } from '@opentelemetry/sdk-node';

export interface Telemetry {
  /** True when the SDK was started (OTEL_EXPORTER_OTLP_ENDPOINT was set). */
  readonly enabled: boolean;
  /**
   * Flushes spans not yet exported, stops the SDK and puts the API's no-op globals back (a later
   * initTelemetry starts afresh). Call it before the process exits.
   */
  shutdown(): Promise<void>;
}

let current: Telemetry | undefined;

/**
 * Starts the OpenTelemetry Node SDK for this process, exporting traces over OTLP/HTTP, but only
 * when OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set. Otherwise the
 * SDK is never required, so a service without tracing loads none of its modules and every span is
 * the API's no-op. Call it first thing in main.ts; a second call returns the first result.
 *
 * Traces only: metrics are Prometheus (/metrics) and logs are pino on stdout, so the SDK's own
 * metric and log exporters are switched off here whatever OTEL_METRICS_EXPORTER says.
 * The exporter speaks http/json by default (our direct dependency); set
 * OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf to have the SDK build its protobuf exporter instead.
 */
export function initTelemetry(serviceName: string): Telemetry {
  // The SDK and exporter read process.env themselves, so this decides on the same variables.
  const env = process.env;
  if (current) return current;
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT && !env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) {
    current = { enabled: false, shutdown: async () => undefined };
    return current;
  }
  // Lazy: these modules (and the SDK's dozens of transitive ones) load only when tracing is on.
  const sdkNode = require('@opentelemetry/sdk-node') as typeof import('@opentelemetry/sdk-node');
  const protocol = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/json').trim();
  const traceExporter =
    protocol === 'http/json'
      ? new (
          require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http')
        ).OTLPTraceExporter()
      : undefined; // the SDK builds the exporter OTEL_EXPORTER_OTLP_PROTOCOL names
  const sdk: NodeSDK = new sdkNode.NodeSDK({
    serviceName,
    ...(traceExporter ? { traceExporter } : {}),
    metricReaders: [],
    logRecordProcessors: [],
  });
  sdk.start();
  let stopped: Promise<void> | undefined;
  const started: Telemetry = {
    enabled: true,
    shutdown: () =>
      (stopped ??= sdk
        .shutdown()
        .catch(() => undefined)
        .then(() => {
          trace.disable();
          context.disable();
          propagation.disable();
          if (current === started) current = undefined;
        })),
  };
  current = started;
  return current;
}
