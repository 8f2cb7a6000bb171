/**
 * A call to a system outside, observed: a client span named for its target
 * (a child of the activity or request that made it, so one trace runs from
 * the API call to every Heat, Nova, Neutron, Keystone, Kubernetes, SSH, EM
 * and notification call it caused) and the latency histogram of
 * common/metrics.ts.
 */
import { SpanKind } from '@opentelemetry/api';
import { timedCall, type OutboundTarget } from './metrics';
import { inSpan } from './tracing';

export function observedCall<T>(target: OutboundTarget, what: string, call: () => Promise<T>): Promise<T> {
  return inSpan(`${target} ${what}`, { kind: SpanKind.CLIENT, attributes: { 'nfv.target': target } }, () => timedCall(target, call));
}
