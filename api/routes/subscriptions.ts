/**
 * SOL003 LCM notification subscriptions, /vnflcm/v1|v2/subscriptions (the
 * stock `openstack vnflcm subsc create|list|show|delete`), owned by the
 * caller's project: another project's subscription is 404 and absent from
 * its list. A create checks the callbackUri (and an OAuth 2.0 token
 * endpoint) against the outbound policy, then GETs the callback with the
 * subscription's authentication and expects 204, as Tacker does: anything
 * else is a 400 naming what answered. The authentication is sealed at rest
 * and never shown back. Beyond SOL003, GET .../subscriptions/{id}/deliveries
 * lists the subscription's notifications with their delivery state
 * (?state=FAILED: those given up at NOTIFICATION_DEADLINE_S).
 */
import crypto from 'node:crypto';
import { Router, type Request, type Response } from 'express';
import { deliveriesOf, type OutboxRow } from '../../store/repos/notifications';
import { createSubscription, deleteSubscription, findSubscription, pageOfSubscriptions, SUBSCRIPTION_LIST, type SubscriptionRow } from '../../store/repos/subscriptions';
import { parse } from '../../common/validate';
import { coordinationTargetProblem } from '../../coord/client';
import { chosenAuthType } from '../../coord/client-auth';
import { LccnSubscriptionRequest } from '../../model/subscriptions';
import { callCallback } from '../../notify/etsi/send';
import { callerOf } from '../auth/middleware';
import { scopeOf } from '../auth/policy';
import type { ApiContext } from '../context';
import { badRequest, notFound } from '../errors';
import type { ApiVersion } from '../views';
import { authorize } from './authorize';
import { pageRequest, sendPage } from './filter';
import { conformant, LccnSubscriptionSchema } from '../schemas/etsi-resources';
import { FREE_FORM } from '../views';

export function subscriptionsRouter(ctx: ApiContext, v: ApiVersion): Router {
  const { db, box, cfg } = ctx;
  const r = Router();
  const base = `${cfg.apiBaseUrl}/vnflcm/${v}/subscriptions`;
  const view = (s: SubscriptionRow) => conformant('LccnSubscription', LccnSubscriptionSchema, {
    id: s.id, ...(s.filter ? { filter: s.filter } : {}), callbackUri: s.callbackUri,
    ...(v === 'v2' ? { verbosity: s.verbosity ?? 'FULL' } : {}),
    _links: { self: { href: `${base}/${s.id}` }, deliveries: { href: `${base}/${s.id}/deliveries` } },
  }, FREE_FORM);
  const load = async (req: Request, res: Response) => {
    const s = await findSubscription(db, scopeOf(callerOf(res)), String(req.params.id));
    if (!s) throw notFound(`subscription ${String(req.params.id)} not found`);
    return s;
  };

  r.post('/subscriptions', authorize('subscriptions', 'write'), async (req, res) => {
    const body = parse(LccnSubscriptionRequest, req.body ?? {});
    if (body.verbosity && v === 'v1') throw badRequest('verbosity: a /vnflcm/v2 attribute (SOL003 3.x); /vnflcm/v1 subscriptions are always FULL');
    const refused = coordinationTargetProblem({ endpoint: body.callbackUri, authentication: body.authentication }, 'callbackUri');
    if (refused) throw badRequest(`callbackUri: ${refused}`);
    if (body.authentication && !chosenAuthType(body.authentication)) {
      throw badRequest(`authentication: authType ${body.authentication.authType.join(', ')} needs its parameters (paramsBasic, paramsOauth2ClientCredentials, paramsOauth2ClientCert)`);
    }
    const test = await callCallback({ callbackUri: body.callbackUri, apiVersion: v, authentication: body.authentication }, 'GET', cfg.notifications.httpTimeoutMs);
    if ('error' in test) throw badRequest(`callbackUri: the test GET of the callback failed: ${test.error}`);
    // what it answered is not echoed: the callback may be some other service, read on the caller's behalf (review 3, M-1)
    if (test.status !== 204) throw badRequest(`callbackUri: the test GET of the callback answered ${test.status}, not 204 No Content`);
    const id = crypto.randomUUID();
    const made = await createSubscription(db, {
      id, projectId: callerOf(res).projectId, apiVersion: v, callbackUri: body.callbackUri, filter: body.filter ?? null,
      verbosity: v === 'v2' ? body.verbosity ?? 'FULL' : null,
      authentication: body.authentication ? { authType: body.authentication.authType } : null,
      authenticationSealed: body.authentication ? box.sealJson(body.authentication) : null,
      createdAt: new Date().toISOString(),
    }, cfg.quotas.subscriptions);
    res.status(201).location(`${base}/${id}`).json(view(made));
  });

  r.get('/subscriptions', authorize('subscriptions', 'read'), async (req, res) => {
    const asked = pageRequest(req.query, SUBSCRIPTION_LIST, cfg.limits.listPageSize);
    const page = await pageOfSubscriptions(db, scopeOf(callerOf(res), req.query.all_projects === 'true'), asked);
    sendPage(req, res, cfg.apiBaseUrl, page.rows.map(view), page.next);
  });

  r.get('/subscriptions/:id', authorize('subscriptions', 'read'), async (req, res) => { res.json(view(await load(req, res))); });

  r.delete('/subscriptions/:id', authorize('subscriptions', 'write'), async (req, res) => {
    const s = await load(req, res);
    if (!(await deleteSubscription(db, scopeOf(callerOf(res)), s.id))) throw notFound(`subscription ${s.id} not found`);
    res.status(204).end();
  });

  r.get('/subscriptions/:id/deliveries', authorize('subscriptions', 'read'), async (req, res) => {
    const s = await load(req, res);
    const state = typeof req.query.state === 'string' ? req.query.state : undefined;
    if (state && !['PENDING', 'DELIVERED', 'FAILED'].includes(state)) throw badRequest(`state: one of PENDING, DELIVERED, FAILED, not ${state.slice(0, 40)}`);
    const limit = Math.min(Math.max(Number(req.query.limit ?? 100) || 100, 1), 1000);
    res.json((await deliveriesOf(db, s.id, { state: state as OutboxRow['state'] | undefined, limit })).map(deliveryView));
  });

  return r;
}

function deliveryView(d: OutboxRow) {
  return {
    id: d.id, notificationType: d.notificationType, state: d.state, attempts: d.attempts,
    ...(d.lastError ? { lastError: d.lastError } : {}), ...(d.lastAttemptAt ? { lastAttemptAt: d.lastAttemptAt } : {}),
    createdAt: d.createdAt, ...(d.finishedAt ? { finishedAt: d.finishedAt } : {}), notification: d.payload,
  };
}
