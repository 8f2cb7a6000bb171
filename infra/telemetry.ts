/**
 * OpenTelemetry tracing of a process (the API, a worker): on when
 * OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is
 * set, spans batched and exported by OTLP over HTTP (the exporter reads the
 * standard OTEL_EXPORTER_OTLP_* variables: headers, timeout), off otherwise.
 * Registering the provider makes the active context follow async calls
 * (AsyncLocalStorage) and propagate as W3C trace context; the Temporal
 * interceptors carry it from the API into the workflow and its activities.
 */
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource } from '@opentelemetry/resources';
import { BatchSpanProcessor, NoopSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

export interface Tracing {
  resource: Resource;
  /** Where the worker's workflow spans go too (the SDK's workflow exporter sink). */
  spanProcessor: SpanProcessor;
  /** Exports what is still batched, then stops. */
  shutdown(): Promise<void>;
}

export function startTracing(service: 'nfv-api' | 'nfv-worker'): Tracing {
  const resource = new Resource({ 'service.name': process.env.OTEL_SERVICE_NAME || service });
  if (!process.env.OTEL_EXPORTER_OTLP_ENDPOINT && !process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) {
    return { resource, spanProcessor: new NoopSpanProcessor(), shutdown: async () => undefined };
  }
  const spanProcessor = new BatchSpanProcessor(new OTLPTraceExporter());
  const provider = new NodeTracerProvider({ resource, spanProcessors: [spanProcessor] });
  provider.register();
  return { resource, spanProcessor, shutdown: () => provider.shutdown() };
}
