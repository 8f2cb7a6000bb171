/** OpenAPI paths of the LCM notification subscriptions (api/routes/subscriptions.ts), from the zod schemas the routes validate and answer with. */
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { LccnSubscription, LccnSubscriptionRequest, NotificationDelivery } from '../model/subscriptions';
import { ListQuery, NEXT_PAGE_HEADER } from './schemas/list-query';

const problem = { description: 'ProblemDetails', content: { 'application/problem+json': { schema: { type: 'object' as const } } } };
const json = (schema: z.ZodType) => ({ content: { 'application/json': { schema } } });

export function subscriptionPaths(r: OpenAPIRegistry): void {
  const params = z.object({ subscriptionId: z.string() });
  for (const v of ['v1', 'v2']) {
    const base = `/vnflcm/${v}/subscriptions`;
    r.registerPath({
      method: 'post', path: base, request: { body: json(LccnSubscriptionRequest) },
      responses: { 201: { description: 'LccnSubscription (the callbackUri answered the test GET with 204)', ...json(LccnSubscription) }, 400: problem },
    });
    r.registerPath({ method: 'get', path: base, request: { query: ListQuery }, responses: { 200: { description: 'LccnSubscription[] of your project', headers: NEXT_PAGE_HEADER, ...json(z.array(LccnSubscription)) }, 400: problem } });
    r.registerPath({ method: 'get', path: `${base}/{subscriptionId}`, request: { params }, responses: { 200: { description: 'LccnSubscription', ...json(LccnSubscription) }, 404: problem } });
    r.registerPath({ method: 'delete', path: `${base}/{subscriptionId}`, request: { params }, responses: { 204: { description: 'deleted, with its queued notifications' }, 404: problem } });
    r.registerPath({
      method: 'get', path: `${base}/{subscriptionId}/deliveries`,
      request: { params, query: z.object({ state: z.enum(['PENDING', 'DELIVERED', 'FAILED']).optional(), limit: z.string().optional() }) },
      responses: { 200: { description: 'the subscription\'s notifications, newest first, with their delivery (extension)', ...json(z.array(NotificationDelivery)) }, 404: problem },
    });
  }
}
