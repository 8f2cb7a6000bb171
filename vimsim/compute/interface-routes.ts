/**
 * /servers/{id}/os-interface: list, show, attach (a port, or a new port on a
 * network) and detach (a port Nova made is deleted, a given one unbound).
 */
import type { Request, RequestHandler, Router } from 'express';
import type { RequestContext } from '../auth/context';
import { badRequest, conflict, notFound } from '../http/errors';
import { ctxOf } from '../http/service';
import { parseBody, param } from '../http/validate';
import { bindPort, createPort, unbindPort } from '../network/ports';
import { networkVisible } from '../network/visibility';
import type { PortRecord, ServerRecord } from '../store/records';
import type { Store } from '../store/store';
import { isoSeconds } from '../util/time';
import { invalidState, visibleServer } from './lookup';
import { asNovaError, type ComputeDeps } from './server-create';
import { InterfaceAttach } from './schemas';
import { hostOf } from './scheduler';

function attachmentView(port: PortRecord) {
  return {
    port_id: port.id,
    net_id: port.network_id,
    port_state: port.status,
    fixed_ips: port.fixed_ips.map((f) => ({ subnet_id: f.subnet_id, ip_address: f.ip_address })),
    mac_addr: port.mac_address,
    tag: null,
  };
}

function attachedPort(store: Store, s: ServerRecord, portId: string): PortRecord {
  const port = s.interfaces.some((i) => i.port_id === portId) ? store.get('ports', portId) : undefined;
  if (!port) throw notFound(`Port ${portId} is not attached`);
  return port;
}

function portToAttach(store: Store, ctx: RequestContext, body: { port_id?: string; net_id?: string; fixed_ips?: { ip_address: string }[] }, req: Request): { port: PortRecord; created: boolean } {
  if (body.port_id) {
    const port = store.get('ports', body.port_id);
    if (!port || (port.project_id !== ctx.projectId && !ctx.isAdmin)) throw notFound(`Port ${body.port_id} could not be found.`);
    if (port.device_id) throw conflict(`Port ${port.id} is still in use.`);
    return { port, created: false };
  }
  if (!body.net_id) throw badRequest(`Must input network_id or port_id when attaching an interface (${param(req, 'id')}).`);
  const net = store.get('networks', body.net_id);
  if (!net || !networkVisible(ctx, net)) throw notFound(`Network ${body.net_id} could not be found.`);
  const port = createPort(store, ctx, { network_id: net.id, name: '', fixed_ips: body.fixed_ips?.map((f) => ({ ip_address: f.ip_address })) });
  return { port, created: true };
}

export function interfaceRoutes(router: Router, deps: ComputeDeps, track: (op: string) => RequestHandler): void {
  const { store } = deps;
  const base = '/v2.1/servers/:id/os-interface';

  router.get(base, track('server.interface.list'), (req, res) => {
    const s = visibleServer(store, ctxOf(res), param(req, 'id'));
    const ports = s.interfaces.map((i) => store.get('ports', i.port_id)).filter((p): p is PortRecord => p !== undefined);
    res.json({ interfaceAttachments: ports.map(attachmentView) });
  });

  router.get(`${base}/:portId`, track('server.interface.show'), (req, res) => {
    const s = visibleServer(store, ctxOf(res), param(req, 'id'));
    res.json({ interfaceAttachment: attachmentView(attachedPort(store, s, param(req, 'portId'))) });
  });

  router.post(base, track('server.interface.attach'), (req, res) => {
    const ctx = ctxOf(res);
    const s = visibleServer(store, ctx, param(req, 'id'));
    const body = parseBody(InterfaceAttach, req.body).interfaceAttachment;
    if (body.port_id && (body.net_id || body.fixed_ips)) throw badRequest('Specified fixed address or network with a port is not allowed.');
    if (s.task_state !== null || !['ACTIVE', 'SHUTOFF', 'PAUSED', 'SUSPENDED'].includes(s.status)) throw invalidState(s, 'attach_interface');
    let port: PortRecord;
    try {
      port = store.tx(() => {
        const { port: p, created } = portToAttach(store, ctx, body, req);
        bindPort(store, p.id, s.id, s.availability_zone, hostOf(s));
        store.put('servers', { ...s, interfaces: [...s.interfaces, { port_id: p.id, created }], updated: isoSeconds() });
        return store.get('ports', p.id)!;
      });
    } catch (err) {
      throw asNovaError(err);
    }
    res.json({ interfaceAttachment: attachmentView(port) });
  });

  router.delete(`${base}/:portId`, track('server.interface.detach'), (req, res) => {
    const s = visibleServer(store, ctxOf(res), param(req, 'id'));
    const port = attachedPort(store, s, param(req, 'portId'));
    if (s.task_state !== null) throw invalidState(s, 'detach_interface');
    const created = s.interfaces.find((i) => i.port_id === port.id)!.created;
    store.tx(() => {
      store.put('servers', { ...s, interfaces: s.interfaces.filter((i) => i.port_id !== port.id), updated: isoSeconds() });
      if (created) store.remove('ports', port.id);
      else unbindPort(store, port.id);
    });
    res.status(202).end();
  });
}
