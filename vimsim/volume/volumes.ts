/**
 * Cinder volumes as records: creation (creating → available after the delay,
 * or error when a fault says so), attachment to a Nova server (in-use) and
 * detachment (available), shared by the Cinder API and Nova's block devices.
 */
import type { RequestContext } from '../auth/context';
import type { Faults } from '../faults/registry';
import type { Transitions } from '../lifecycle/transitions';
import type { ServerRecord, VolumeRecord } from '../store/records';
import type { Store } from '../store/store';
import { newUuid } from '../util/ids';
import { isoMicros } from '../util/time';
import { isMultiattach, resolveVolumeType } from './type-routes';

export interface NewVolume {
  name: string | null;
  description?: string | null;
  size: number;
  imageId?: string | null;
  /** Volume type id or name; the default type when absent. */
  volumeType?: string | null;
  availabilityZone?: string | null;
  metadata?: Record<string, string>;
  multiattach?: boolean;
}

export function createVolume(store: Store, faults: Faults, transitions: Transitions, ctx: RequestContext, spec: NewVolume): VolumeRecord {
  const type = resolveVolumeType(store, spec.volumeType);
  const now = isoMicros();
  const fault = faults.take('volume', 'create', spec.name ?? '');
  const volume: VolumeRecord = {
    id: newUuid(),
    name: spec.name,
    description: spec.description ?? null,
    project_id: ctx.projectId,
    user_id: ctx.trustorUserId ?? ctx.userId,
    size: spec.size,
    status: 'creating',
    availability_zone: spec.availabilityZone || 'nova',
    volume_type: type.id,
    bootable: Boolean(spec.imageId),
    image_id: spec.imageId ?? null,
    metadata: spec.metadata ?? {},
    attachments: [],
    multiattach: spec.multiattach ?? isMultiattach(type),
    created_at: now,
    updated_at: now,
    pending: transitions.pending('create', fault, { message: 'Volume creation failed.', code: 500 }),
  };
  return store.put('volumes', volume);
}

/** Nova attaches the volume to a server: in-use, with the attachment record Cinder shows. */
export function attachVolume(store: Store, volume: VolumeRecord, server: ServerRecord, device: string): string {
  const attachmentId = newUuid();
  store.put('volumes', {
    ...volume,
    status: 'in-use',
    updated_at: isoMicros(),
    attachments: [
      ...volume.attachments,
      { id: volume.id, attachment_id: attachmentId, volume_id: volume.id, server_id: server.id, host_name: server.host ?? '', device, attached_at: isoMicros() },
    ],
  });
  return attachmentId;
}

/** The server let go of the volume: available again once no attachment is left. */
export function detachVolume(store: Store, volumeId: string, serverId: string): void {
  const volume = store.get('volumes', volumeId);
  if (!volume) return;
  const attachments = volume.attachments.filter((a) => a.server_id !== serverId);
  store.put('volumes', { ...volume, attachments, status: attachments.length > 0 ? 'in-use' : 'available', updated_at: isoMicros() });
}

/** Cinder's completions: creating → available (or error), deleting → gone (or error_deleting). */
export function completeVolume(store: Store, id: string): void {
  const volume = store.get('volumes', id);
  const p = volume?.pending;
  if (!volume || !p) return;
  const now = isoMicros();
  if (p.op === 'create') {
    store.put('volumes', { ...volume, status: p.failure ? 'error' : 'available', updated_at: now, pending: null });
  } else if (p.op === 'delete') {
    if (p.failure) store.put('volumes', { ...volume, status: 'error_deleting', updated_at: now, pending: null });
    else store.remove('volumes', id);
  } else if (p.op === 'extend') {
    store.put('volumes', { ...volume, status: 'available', size: Number(p.args?.size ?? volume.size), updated_at: now, pending: null });
  }
}
