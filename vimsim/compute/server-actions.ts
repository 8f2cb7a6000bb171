/**
 * POST /servers/{id}/action: rebuild, reboot, resize with confirm/revert,
 * os-stop/os-start, forceDelete, createImage, add/removeSecurityGroup,
 * os-getConsoleOutput. Each
 * checks the server's state the way Nova does (409 otherwise); unknown
 * actions are a 400.
 */
import type { RequestHandler, Router } from 'express';
import { z } from 'zod';
import { badRequest, conflict } from '../http/errors';
import { ctxOf } from '../http/service';
import { hostUrl } from '../http/urls';
import { parseBody, param } from '../http/validate';
import type { ServerRecord } from '../store/records';
import { newUuid } from '../util/ids';
import { isoSeconds } from '../util/time';
import { invalidState, ownKeypair, visibleServer } from './lookup';
import { consoleOutput } from './console-output';
import { checkUserData, usableImage, type ComputeDeps } from './server-create';
import { CreateImage, Rebuild, Reboot, Resize, SecurityGroupAction } from './schemas';
import { atLeast } from './versions';
import { serverDetail } from './views';

const ActionBody = z.record(z.string(), z.unknown()).refine((b) => Object.keys(b).length === 1, 'exactly one action per request');

export function serverActionRoutes(router: Router, deps: ComputeDeps, track: (op: string) => RequestHandler): void {
  const { store, transitions, faults } = deps;
  const busy = (s: ServerRecord) => s.task_state !== null || s.pending !== null;
  const start = (s: ServerRecord, op: string, changes: Partial<ServerRecord>, args?: Record<string, string | null>, fault?: ReturnType<typeof faults.take>) =>
    store.put('servers', { ...s, ...changes, updated: isoSeconds(), pending: transitions.pending(op, fault, { message: `Failed to ${op} the instance.`, code: 500 }, args) });

  router.post('/v2.1/servers/:id/action', (req, res) => {
    const ctx = ctxOf(res);
    const s = visibleServer(store, ctx, param(req, 'id'));
    const [action, raw] = Object.entries(parseBody(ActionBody, req.body))[0];
    track(`server.action.${/^[\w-]{1,40}$/.test(action) ? action : 'invalid'}`)(req, res, () => undefined);
    switch (action) {
      case 'rebuild': {
        const body = parseBody(Rebuild, raw);
        if (busy(s) || !['ACTIVE', 'SHUTOFF', 'ERROR'].includes(s.status)) throw invalidState(s, 'rebuild');
        const flavor = store.get('flavors', s.flavor_id)!;
        usableImage(store, ctx, body.imageRef, flavor);
        if (body.key_name && !ownKeypair(store, ctx, body.key_name)) throw badRequest('Invalid key_name provided.');
        const updated = start(
          s,
          'rebuild',
          {
            status: 'REBUILD',
            task_state: 'rebuilding',
            name: body.name ?? s.name,
            metadata: body.metadata ?? s.metadata,
            user_data: body.user_data !== undefined && atLeast(res, 57) ? checkUserData(body.user_data) : s.user_data,
            key_name: body.key_name !== undefined && atLeast(res, 54) ? body.key_name : s.key_name,
            admin_pass: body.adminPass ?? s.admin_pass,
            description: body.description !== undefined ? body.description : s.description,
            fault: null,
          },
          { image_id: body.imageRef },
          faults.take('server', 'rebuild', s.name),
        );
        res.status(202).json({ server: { ...serverDetail(updated, store, ctx, req, res), ...(body.adminPass ? { adminPass: body.adminPass } : {}) } });
        return;
      }
      case 'reboot': {
        const body = parseBody(Reboot, raw);
        const hard = body.type.toUpperCase() === 'HARD';
        if (busy(s) || !['ACTIVE', 'SHUTOFF', 'ERROR'].includes(s.status) || (!hard && s.status !== 'ACTIVE')) throw invalidState(s, 'reboot');
        start(s, 'reboot', { status: hard ? 'HARD_REBOOT' : 'REBOOT', task_state: hard ? 'rebooting_hard' : 'rebooting' });
        res.status(202).end();
        return;
      }
      case 'resize': {
        const body = parseBody(Resize, raw);
        if (busy(s) || !['ACTIVE', 'SHUTOFF'].includes(s.status)) throw invalidState(s, 'resize');
        const flavor = store.get('flavors', body.flavorRef);
        if (!flavor) throw badRequest(`Flavor ${body.flavorRef} could not be found.`);
        if (flavor.id === s.flavor_id) throw badRequest('When resizing, instances must change flavor!');
        const old = store.get('flavors', s.flavor_id);
        if (old && flavor.disk < old.disk && s.image_id !== '') throw badRequest('Resize error: Unable to resize disk down.');
        start(s, 'resize', { status: 'RESIZE', task_state: 'resize_prep', old_flavor_id: s.flavor_id }, { flavor_id: flavor.id });
        res.status(202).end();
        return;
      }
      case 'confirmResize': {
        if (s.status !== 'VERIFY_RESIZE') throw conflict(`Instance has not been resized.`);
        store.put('servers', { ...s, status: 'ACTIVE', vm_state: 'active', task_state: null, old_flavor_id: null, updated: isoSeconds() });
        res.status(204).end();
        return;
      }
      case 'revertResize': {
        if (s.status !== 'VERIFY_RESIZE') throw conflict(`Instance has not been resized.`);
        start(s, 'revert_resize', { status: 'REVERT_RESIZE', task_state: 'resize_reverting' });
        res.status(202).end();
        return;
      }
      case 'os-stop': {
        if (busy(s) || !['ACTIVE', 'ERROR'].includes(s.status)) throw invalidState(s, 'stop');
        start(s, 'stop', { task_state: 'powering-off' });
        res.status(202).end();
        return;
      }
      case 'os-start': {
        if (busy(s) || s.status !== 'SHUTOFF') throw invalidState(s, 'start');
        start(s, 'start', { task_state: 'powering-on' });
        res.status(202).end();
        return;
      }
      case 'forceDelete':
        // Soft delete is not enabled in this cloud: there is never a SOFT_DELETED server to force.
        throw invalidState(s, 'forceDelete');
      case 'createImage': {
        const body = parseBody(CreateImage, raw);
        if (busy(s)) throw invalidState(s, 'createImage');
        const source = store.get('images', s.image_id);
        const now = isoSeconds();
        const image = store.put('images', {
          ...(source ?? { disk_format: 'qcow2', container_format: 'bare', min_ram: 0, min_disk: 0, size: 0, virtual_size: null, checksum: null, os_hash_algo: null, os_hash_value: null, protected: false, tags: [] }),
          id: newUuid(),
          name: body.name,
          status: 'active',
          visibility: 'private',
          owner: s.project_id,
          properties: { ...(source?.properties ?? {}), ...(body.metadata ?? {}), image_type: 'snapshot', instance_uuid: s.id, base_image_ref: s.image_id },
          created_at: now,
          updated_at: now,
        });
        res.status(202).location(`${hostUrl(req)}/image/v2/images/${image.id}`);
        if (atLeast(res, 45)) res.json({ image_id: image.id });
        else res.end();
        return;
      }
      case 'addSecurityGroup':
      case 'removeSecurityGroup': {
        const { name } = parseBody(SecurityGroupAction, raw);
        const group = store.list('security_groups').find((g) => g.project_id === s.project_id && (g.name === name || g.id === name));
        if (!group) throw badRequest(`Security group ${name} not found for project ${s.project_id}.`);
        const add = action === 'addSecurityGroup';
        if (add === s.security_groups.includes(group.name)) {
          throw badRequest(add ? `Security group ${group.name} is already associated with the instance ${s.id}` : `Security group ${group.name} not associated with the instance ${s.id}`);
        }
        store.tx(() => {
          store.put('servers', { ...s, security_groups: add ? [...s.security_groups, group.name] : s.security_groups.filter((g) => g !== group.name) });
          for (const iface of s.interfaces) {
            const port = store.get('ports', iface.port_id);
            if (!port || !port.port_security_enabled) continue;
            const groups = add ? [...new Set([...port.security_groups, group.id])] : port.security_groups.filter((g) => g !== group.id);
            store.put('ports', { ...port, security_groups: groups, revision_number: port.revision_number + 1 });
          }
        });
        res.status(202).end();
        return;
      }
      case 'os-getConsoleOutput':
        res.status(200).json(consoleOutput(s, raw, deps.console));
        return;
      default:
        throw badRequest(`There is no such action: ${action.slice(0, 60)}`);
    }
  });
}
