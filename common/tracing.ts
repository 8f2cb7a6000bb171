/**
 * Tracing helpers over the OpenTelemetry API. With no tracer provider
 * registered (OTEL_EXPORTER_OTLP_ENDPOINT unset: infra/telemetry.ts) every
 * span is a no-op and costs next to nothing. Span attributes never hold a
 * secret: names, targets and status codes, no URLs with queries, no
 * commands, no bodies.
 */
import { SpanKind, SpanStatusCode, trace, type Attributes, type Span } from '@opentelemetry/api';
import type { SearchAttributePair } from '@temporalio/common';
import { SA_TRACE_ID } from './search-attributes';

export const tracer = () => trace.getTracer('nfv-orchestrator');

/** Runs `fn` in a new active span (a child of the active one); an exception marks the span failed and is rethrown. */
export function inSpan<T>(name: string, o: { kind?: SpanKind; attributes?: Attributes }, fn: (span: Span) => Promise<T>): Promise<T> {
  return tracer().startActiveSpan(name, { kind: o.kind ?? SpanKind.INTERNAL, attributes: o.attributes }, async (span) => {
    try {
      return await fn(span);
    } catch (e) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: (e as Error).name });
      throw e;
    } finally {
      span.end();
    }
  });
}

/** The trace id of the active span, if one is being recorded. */
export function activeTraceId(): string | undefined {
  const span = trace.getActiveSpan();
  return span?.isRecording() ? span.spanContext().traceId : undefined;
}

/** The TraceId search attribute of an operation started in the active trace, for the Web UI; none when tracing is off. */
export function traceAttribute(): SearchAttributePair[] {
  const id = activeTraceId();
  return id ? [{ key: SA_TRACE_ID, value: id }] : [];
}
