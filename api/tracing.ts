/**
 * A server span per API request, continuing the caller's trace when it
 * sends W3C trace context (traceparent). Everything the request does runs
 * in it: the store, the workflow it starts (the Temporal client interceptor
 * carries it into the workflow) and its calls outside. Named by method and
 * route template once routed; the answer's `traceresponse` header gives
 * the trace id, so an operator can find the trace of a call.
 */
import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { RequestHandler } from 'express';
import { methodLabel } from '../common/metrics';
import { tracer } from '../common/tracing';
import { routeTemplate } from './metrics';

export function traceRequests(): RequestHandler {
  return (req, res, next) => {
    const parent = propagation.extract(context.active(), req.headers);
    const method = methodLabel(req.method);
    const span = tracer().startSpan(method, { kind: SpanKind.SERVER, attributes: { 'http.request.method': method } }, parent);
    if (span.isRecording()) {
      const { traceId, spanId } = span.spanContext();
      res.setHeader('traceresponse', `00-${traceId}-${spanId}-01`);
    }
    res.once('close', () => {
      const route = routeTemplate(req);
      span.updateName(`${method} ${route}`);
      span.setAttributes({ 'http.route': route, 'http.response.status_code': res.statusCode });
      if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    });
    context.with(trace.setSpan(parent, span), next);
  };
}
