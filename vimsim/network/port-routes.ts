/**
 * /v2.0/ports. Create and delete honour injected port faults (by port name).
 * Deleting a port a server uses takes it off the server too, as Nova does
 * when Neutron tells it the VIF is gone.
 */
import type { RequestHandler, Router } from 'express';
import type { Faults } from '../faults/registry';
import { ApiError, forbidden } from '../http/errors';
import { ctxOf } from '../http/service';
import { hostUrl } from '../http/urls';
import { parseBody, param } from '../http/validate';
import type { PortRecord } from '../store/records';
import type { Store } from '../store/store';
import { isoSeconds } from '../util/time';
import { allocateFixedIps } from './ipam';
import { visiblePort } from './lookup';
import { createPort, securityGroupIds } from './ports';
import { listBody, selectFields } from './query';
import { createItems, envelope, extensionAttributes, knownChanges, PortCreate, PortUpdate } from './schemas';
import { portView } from './views';
import { ownsOrAdmin } from './visibility';

const FAULT_DEFAULTS = {
  create: { code: 409, type: 'IpAddressGenerationFailure', message: (p: { network_id: string }) => `No more IP addresses available on network ${p.network_id}.` },
  delete: { code: 500, type: 'HTTPInternalServerError', message: () => 'Request Failed: internal server error while processing your request.' },
};

function injectedFailure(faults: Faults, operation: 'create' | 'delete', port: { name?: string; network_id: string }): ApiError | undefined {
  const fault = faults.take('port', operation, port.name ?? '');
  if (!fault) return undefined;
  const d = FAULT_DEFAULTS[operation];
  const code = fault.code ?? d.code;
  return new ApiError(code, fault.message ?? d.message(port), code === d.code ? d.type : undefined);
}

export function portRoutes(router: Router, store: Store, faults: Faults, track: (op: string) => RequestHandler): void {
  router.post('/v2.0/ports', track('port.create'), (req, res) => {
    const { items, bulk } = createItems('port', 'ports', req.body);
    const ports = store.tx(() =>
      items.map((raw) => {
        const spec = parseBody(PortCreate, raw);
        const extra = extensionAttributes(raw as Record<string, unknown>, PortCreate);
        const failure = injectedFailure(faults, 'create', spec);
        if (failure) throw failure;
        return createPort(store, ctxOf(res), spec, extra);
      }),
    );
    res.status(201).json(bulk ? { ports: ports.map(portView) } : { port: portView(ports[0]) });
  });

  router.get('/v2.0/ports', track('port.list'), (req, res) => {
    const ctx = ctxOf(res);
    const views = store.list('ports').filter((p) => ownsOrAdmin(ctx, p.project_id)).map(portView);
    res.json(listBody('ports', views, req, `${hostUrl(req)}/network/v2.0`));
  });

  router.get('/v2.0/ports/:id', track('port.show'), (req, res) => {
    res.json({ port: selectFields(portView(visiblePort(store, ctxOf(res), param(req, 'id'))), req.query) });
  });

  router.put('/v2.0/ports/:id', track('port.update'), (req, res) => {
    const ctx = ctxOf(res);
    const port = visiblePort(store, ctx, param(req, 'id'));
    const raw = envelope('port', req.body);
    const spec = parseBody(PortUpdate, raw);
    const extra = extensionAttributes(raw as Record<string, unknown>, PortUpdate);
    const updated = store.tx(() => {
      const next = { ...port, ...knownChanges(spec, PortUpdate, ['tags', 'fixed_ips', 'security_groups', 'allowed_address_pairs', 'extra_dhcp_opts', 'qos_policy_id', 'propagate_uplink_status', 'numa_affinity_policy']) } as PortRecord;
      if (spec.fixed_ips !== undefined) next.fixed_ips = allocateFixedIps(store, port.network_id, spec.fixed_ips, port.id);
      if (spec.security_groups !== undefined) next.security_groups = securityGroupIds(store, ctx, port.project_id, spec.security_groups);
      if (spec.allowed_address_pairs !== undefined) {
        next.allowed_address_pairs = spec.allowed_address_pairs.map((p) => ({ ip_address: p.ip_address, mac_address: p.mac_address ?? port.mac_address }));
      }
      if (spec.port_security_enabled === false && next.security_groups.length > 0 && spec.security_groups === undefined) next.security_groups = [];
      next.extra = { ...port.extra, ...extra };
      next.updated_at = isoSeconds();
      next.revision_number = port.revision_number + 1;
      return store.put('ports', next);
    });
    res.json({ port: portView(updated) });
  });

  router.delete('/v2.0/ports/:id', track('port.delete'), (req, res) => {
    const ctx = ctxOf(res);
    const port = visiblePort(store, ctx, param(req, 'id'));
    if (port.device_owner === 'network:router_interface' || port.device_owner === 'network:router_gateway') {
      throw new ApiError(409, `Port ${port.id} cannot be deleted directly via the port API: has device owner ${port.device_owner}.`, 'ServicePortInUse');
    }
    if (!ctx.isAdmin && port.project_id !== ctx.projectId) throw forbidden('Not allowed', 'PolicyNotAuthorized');
    const failure = injectedFailure(faults, 'delete', port);
    if (failure) throw failure;
    store.tx(() => {
      const server = port.device_id ? store.get('servers', port.device_id) : undefined;
      if (server) store.put('servers', { ...server, interfaces: server.interfaces.filter((i) => i.port_id !== port.id) });
      store.remove('ports', port.id);
    });
    res.status(204).end();
  });
}
