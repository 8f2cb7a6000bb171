/** /v2.0/networks: create, list, show, update, delete (409 NetworkInUse while ports remain). */
import type { RequestHandler, Router } from 'express';
import { ctxOf } from '../http/service';
import { conflict, forbidden } from '../http/errors';
import { hostUrl } from '../http/urls';
import { parseBody, param } from '../http/validate';
import type { NetworkRecord } from '../store/records';
import type { Store } from '../store/store';
import { newUuid } from '../util/ids';
import { isoSeconds } from '../util/time';
import { visibleNetwork } from './ports';
import { listBody, selectFields } from './query';
import { createItems, envelope, extensionAttributes, knownChanges, NetworkCreate, NetworkUpdate } from './schemas';
import { networkView } from './views';
import { networkVisible, owningProject } from './visibility';

export function networkRoutes(router: Router, store: Store, track: (op: string) => RequestHandler): void {
  const newNetwork = (ctx: ReturnType<typeof ctxOf>, raw: unknown): NetworkRecord => {
    const spec = parseBody(NetworkCreate, raw);
    const extra = extensionAttributes(raw as Record<string, unknown>, NetworkCreate);
    if ((spec['router:external'] || Object.keys(extra).some((k) => k.startsWith('provider:'))) && !ctx.isAdmin) {
      throw forbidden('(rule:create_network and rule:create_network:router:external) is disallowed by policy', 'PolicyNotAuthorized');
    }
    const now = isoSeconds();
    const net: NetworkRecord = {
      id: newUuid(),
      name: spec.name ?? '',
      project_id: owningProject(ctx, spec),
      description: spec.description ?? '',
      tags: spec.tags ?? [],
      created_at: now,
      updated_at: now,
      revision_number: 1,
      admin_state_up: spec.admin_state_up ?? true,
      shared: spec.shared ?? false,
      'router:external': spec['router:external'] ?? false,
      status: 'ACTIVE',
      mtu: spec.mtu ?? 1450,
      port_security_enabled: spec.port_security_enabled ?? true,
      availability_zone_hints: spec.availability_zone_hints ?? [],
      dns_domain: spec.dns_domain ?? '',
      extra: { 'provider:network_type': 'vxlan', 'provider:physical_network': null, 'provider:segmentation_id': 1000 + store.list('networks').length, ...extra },
    };
    return store.put('networks', net);
  };

  router.post('/v2.0/networks', track('network.create'), (req, res) => {
    const { items, bulk } = createItems('network', 'networks', req.body);
    const nets = store.tx(() => items.map((raw) => newNetwork(ctxOf(res), raw)));
    res.status(201).json(bulk ? { networks: nets.map((n) => networkView(n, store)) } : { network: networkView(nets[0], store) });
  });

  router.get('/v2.0/networks', track('network.list'), (req, res) => {
    const ctx = ctxOf(res);
    const views = store.list('networks').filter((n) => networkVisible(ctx, n)).map((n) => networkView(n, store));
    res.json(listBody('networks', views, req, `${hostUrl(req)}/network/v2.0`));
  });

  router.get('/v2.0/networks/:id', track('network.show'), (req, res) => {
    const net = visibleNetwork(store, ctxOf(res), param(req, 'id'));
    res.json({ network: selectFields(networkView(net, store), req.query) });
  });

  router.put('/v2.0/networks/:id', track('network.update'), (req, res) => {
    const ctx = ctxOf(res);
    const net = visibleNetwork(store, ctx, param(req, 'id'));
    const raw = envelope('network', req.body);
    const spec = parseBody(NetworkUpdate, raw);
    const extra = extensionAttributes(raw as Record<string, unknown>, NetworkUpdate);
    if (!ctx.isAdmin && net.project_id !== ctx.projectId) throw forbidden(`Network ${net.id} is not owned by your project`, 'PolicyNotAuthorized');
    const updated: NetworkRecord = {
      ...net,
      ...knownChanges(spec, NetworkUpdate, ['tags', 'qos_policy_id', 'is_default']),
      extra: { ...net.extra, ...extra },
      updated_at: isoSeconds(),
      revision_number: net.revision_number + 1,
    } as NetworkRecord;
    store.put('networks', updated);
    res.json({ network: networkView(updated, store) });
  });

  router.delete('/v2.0/networks/:id', track('network.delete'), (req, res) => {
    const ctx = ctxOf(res);
    const net = visibleNetwork(store, ctx, param(req, 'id'));
    if (!ctx.isAdmin && net.project_id !== ctx.projectId) throw forbidden(`Network ${net.id} is not owned by your project`, 'PolicyNotAuthorized');
    const inUse = store.list('ports').some((p) => p.network_id === net.id && p.device_owner !== 'network:dhcp');
    if (inUse) {
      throw conflict(`Unable to complete operation on network ${net.id}. There are one or more ports still in use on the network.`, 'NetworkInUse');
    }
    store.tx(() => {
      for (const s of store.list('subnets')) if (s.network_id === net.id) store.remove('subnets', s.id);
      store.remove('networks', net.id);
    });
    res.status(204).end();
  });
}
