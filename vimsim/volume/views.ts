/** Cinder v3's volume representation, by microversion. */
import type { Request } from 'express';
import type { RequestContext } from '../auth/context';
import { hostUrl } from '../http/urls';
import type { VolumeRecord } from '../store/records';
import type { Store } from '../store/store';

/** The one cinder-volume host (a name only). */
const STORAGE_HOST = 'vimsim-storage';

/** Requested Cinder microversion's minor number (3.x); absent header = 3.0. */
export function volumeMinor(req: Request): number {
  const header = req.get('openstack-api-version') ?? '';
  const m = /volume\s+3\.(\d+)/i.exec(header);
  return m ? Number(m[1]) : 0;
}

function volumeLinks(req: Request, v: VolumeRecord) {
  const host = hostUrl(req);
  return [
    { rel: 'self', href: `${host}/volume/v3/${v.project_id}/volumes/${v.id}` },
    { rel: 'bookmark', href: `${host}/volume/${v.project_id}/volumes/${v.id}` },
  ];
}

export function volumeSummary(v: VolumeRecord, req: Request) {
  return { id: v.id, name: v.name, links: volumeLinks(req, v) };
}

export function volumeDetail(v: VolumeRecord, store: Store, ctx: RequestContext, req: Request) {
  const minor = volumeMinor(req);
  const image = v.image_id ? store.get('images', v.image_id) : undefined;
  return {
    id: v.id,
    name: v.name,
    description: v.description,
    status: v.status,
    size: v.size,
    availability_zone: v.availability_zone,
    created_at: v.created_at,
    updated_at: v.updated_at,
    volume_type: store.get('volume_types', v.volume_type)?.name ?? v.volume_type,
    snapshot_id: null,
    source_volid: null,
    bootable: String(v.bootable),
    encrypted: false,
    multiattach: v.multiattach,
    metadata: v.metadata,
    attachments: v.attachments,
    links: volumeLinks(req, v),
    user_id: v.user_id,
    'os-vol-tenant-attr:tenant_id': v.project_id,
    replication_status: null,
    consistencygroup_id: null,
    'os-vol-mig-status-attr:migstat': null,
    'os-vol-mig-status-attr:name_id': null,
    ...(ctx.isAdmin ? { 'os-vol-host-attr:host': `${STORAGE_HOST}@lvmdriver-1#lvmdriver-1` } : {}),
    ...(image ? { volume_image_metadata: { image_id: image.id, image_name: image.name ?? '', min_ram: String(image.min_ram), min_disk: String(image.min_disk), disk_format: image.disk_format ?? '', container_format: image.container_format ?? '', ...image.properties } } : {}),
    ...(minor >= 13 ? { group_id: null } : {}),
    ...(minor >= 21 ? { provider_id: null } : {}),
    ...(minor >= 48 ? { service_uuid: null, shared_targets: false } : {}),
    ...(minor >= 61 ? { cluster_name: null } : {}),
    ...(minor >= 63 ? { volume_type_id: v.volume_type } : {}),
    ...(minor >= 65 ? { consumes_quota: true } : {}),
  };
}
