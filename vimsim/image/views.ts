/** Glance v2's image representation and the JSON schemas glanceclient builds its models from. */
import type { ImageRecord } from '../store/records';

export function imageView(i: ImageRecord) {
  return {
    ...i.properties,
    id: i.id,
    name: i.name,
    status: i.status,
    visibility: i.visibility,
    owner: i.owner,
    protected: i.protected,
    os_hidden: false,
    checksum: i.checksum,
    os_hash_algo: i.os_hash_algo,
    os_hash_value: i.os_hash_value,
    min_ram: i.min_ram,
    min_disk: i.min_disk,
    size: i.size,
    virtual_size: i.virtual_size,
    disk_format: i.disk_format,
    container_format: i.container_format,
    tags: i.tags,
    created_at: i.created_at,
    updated_at: i.updated_at,
    ...(i.status === 'active' ? { stores: 'file' } : {}),
    self: `/v2/images/${i.id}`,
    file: `/v2/images/${i.id}/file`,
    schema: '/v2/schemas/image',
  };
}

export const DISK_FORMATS = ['ami', 'ari', 'aki', 'vhd', 'vhdx', 'vmdk', 'raw', 'qcow2', 'vdi', 'iso', 'ploop'] as const;
export const CONTAINER_FORMATS = ['ami', 'ari', 'aki', 'bare', 'ovf', 'ova', 'docker', 'compressed'] as const;

const nullableString = (maxLength = 255) => ({ type: ['null', 'string'], maxLength });

export const IMAGE_SCHEMA = {
  name: 'image',
  additionalProperties: { type: 'string' },
  properties: {
    id: { type: 'string', description: 'An identifier for the image', pattern: '^([0-9a-fA-F]){8}-([0-9a-fA-F]){4}-([0-9a-fA-F]){4}-([0-9a-fA-F]){4}-([0-9a-fA-F]){12}$' },
    name: { ...nullableString(), description: 'Descriptive name for the image' },
    status: { type: 'string', readOnly: true, enum: ['queued', 'saving', 'active', 'killed', 'deleted', 'uploading', 'importing', 'pending_delete', 'deactivated'] },
    visibility: { type: 'string', enum: ['community', 'public', 'private', 'shared'] },
    protected: { type: 'boolean' },
    os_hidden: { type: 'boolean' },
    checksum: { ...nullableString(32), readOnly: true },
    os_hash_algo: { ...nullableString(64), readOnly: true },
    os_hash_value: { ...nullableString(128), readOnly: true },
    owner: nullableString(),
    size: { type: ['null', 'integer'], readOnly: true },
    virtual_size: { type: ['null', 'integer'], readOnly: true },
    container_format: { type: ['null', 'string'], enum: [null, ...CONTAINER_FORMATS] },
    disk_format: { type: ['null', 'string'], enum: [null, ...DISK_FORMATS] },
    created_at: { type: 'string', readOnly: true },
    updated_at: { type: 'string', readOnly: true },
    tags: { type: 'array', items: { type: 'string', maxLength: 255 } },
    direct_url: { type: 'string', readOnly: true },
    min_ram: { type: 'integer' },
    min_disk: { type: 'integer' },
    self: { type: 'string', readOnly: true },
    file: { type: 'string', readOnly: true },
    stores: { type: 'string', readOnly: true },
    schema: { type: 'string', readOnly: true },
    locations: { type: 'array', items: { type: 'object' } },
    os_distro: { type: 'string' },
    os_version: { type: 'string' },
  },
  links: [
    { rel: 'self', href: '{self}' },
    { rel: 'enclosure', href: '{file}' },
    { rel: 'describedby', href: '{schema}' },
  ],
};

export const IMAGES_SCHEMA = {
  name: 'images',
  properties: {
    images: { type: 'array', items: IMAGE_SCHEMA },
    schema: { type: 'string' },
    first: { type: 'string' },
    next: { type: 'string' },
  },
  links: [
    { rel: 'first', href: '{first}' },
    { rel: 'next', href: '{next}' },
    { rel: 'describedby', href: '{schema}' },
  ],
};
