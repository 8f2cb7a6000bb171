/**
 * How each timed server change ends (the compute node's part of Nova):
 * build → ACTIVE (or ERROR with a fault, its ports and volumes let go, as
 * Nova cleans up a failed build), delete → gone with its Nova-made
 * ports and attachments released (or ERROR when a fault fails it), rebuild →
 * ACTIVE on the new image with a fresh disk, resize → VERIFY_RESIZE, revert →
 * ACTIVE on the old flavor, reboot/start → ACTIVE, stop → SHUTOFF.
 */
import { unbindPort } from '../network/ports';
import type { Pending, ServerRecord } from '../store/records';
import type { Store } from '../store/store';
import { generateHostKey } from '../ssh/hostkey';
import { isoMicros, isoSeconds } from '../util/time';
import { detachVolume } from '../volume/volumes';

const ACTIVE = { status: 'ACTIVE', vm_state: 'active', task_state: null, power_state: 1 } as const;

function errored(s: ServerRecord, failure: { message: string; code: number }): ServerRecord {
  return {
    ...s,
    status: 'ERROR',
    vm_state: 'error',
    task_state: null,
    fault: { code: failure.code, message: failure.message, details: failure.message, created: isoSeconds() },
    updated: isoSeconds(),
    pending: null,
  };
}

/** Nova lets go of the server's network and volumes: ports it made are deleted, given ones unbound; volumes detached (or deleted with delete_on_termination). */
function release(store: Store, s: ServerRecord): void {
  for (const iface of s.interfaces) {
    if (iface.created) store.remove('ports', iface.port_id);
    else unbindPort(store, iface.port_id);
  }
  for (const v of s.volumes) {
    if (v.delete_on_termination) store.remove('volumes', v.volume_id);
    else detachVolume(store, v.volume_id, s.id);
  }
}

function removeServer(store: Store, s: ServerRecord): void {
  store.tx(() => {
    release(store, s);
    for (const g of store.list('server_groups')) {
      if (g.members.includes(s.id)) store.put('server_groups', { ...g, members: g.members.filter((m) => m !== s.id) });
    }
    store.remove('servers', s.id);
  });
}

export function completeServer(store: Store, id: string, p: Pending): void {
  const s = store.get('servers', id);
  if (!s) return;
  const now = isoSeconds();
  if (p.op === 'delete') {
    if (p.failure) store.put('servers', errored(s, p.failure));
    else removeServer(store, s);
    return;
  }
  if (p.failure && p.op === 'build') {
    // A failed build is cleaned up (_cleanup_allocated_networks, volumes): the ports can serve a replacement.
    store.tx(() => {
      release(store, s);
      store.put('servers', { ...errored(s, p.failure!), interfaces: [], volumes: [] });
    });
    return;
  }
  if (p.failure) {
    store.put('servers', errored(s, p.failure));
    return;
  }
  switch (p.op) {
    case 'build':
      store.put('servers', { ...s, ...ACTIVE, launched_at: isoMicros(), updated: now, pending: null });
      return;
    case 'rebuild':
      store.put('servers', {
        ...s,
        ...ACTIVE,
        image_id: p.args?.image_id ?? s.image_id,
        generation: s.generation + 1,
        ssh_host_key: generateHostKey(),
        launched_at: isoMicros(),
        updated: now,
        pending: null,
      });
      return;
    case 'resize':
      store.put('servers', { ...s, status: 'VERIFY_RESIZE', vm_state: 'resized', task_state: null, flavor_id: p.args?.flavor_id ?? s.flavor_id, updated: now, pending: null });
      return;
    case 'revert_resize':
      store.put('servers', { ...s, ...ACTIVE, flavor_id: s.old_flavor_id ?? s.flavor_id, old_flavor_id: null, updated: now, pending: null });
      return;
    case 'stop':
      store.put('servers', { ...s, status: 'SHUTOFF', vm_state: 'stopped', task_state: null, power_state: 4, updated: now, pending: null });
      return;
    default: // reboot, start
      store.put('servers', { ...s, ...ACTIVE, updated: now, pending: null });
  }
}
