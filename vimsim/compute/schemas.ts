/** Request bodies of the Nova API (the parts novaclient and Heat send; other keys are ignored). */
import { z } from 'zod';

const ref = z.union([z.string().max(255), z.number().int().nonnegative()]).transform(String);
const name = z.string().trim().min(1).max(255);
const metadata = z.record(z.string().min(1).max(255), z.string().max(255));

export const NetworkEntry = z
  .object({
    uuid: z.string().max(255).optional(),
    port: z.string().max(255).optional(),
    fixed_ip: z.string().max(64).optional(),
    tag: z.string().max(60).optional(),
  })
  .strict();

export const BlockDevice = z.looseObject({
  source_type: z.enum(['volume', 'image', 'snapshot', 'blank']).optional(),
  destination_type: z.enum(['volume', 'local']).optional(),
  uuid: z.string().max(255).optional(),
  boot_index: z.union([z.number().int(), z.string().regex(/^-?\d+$/).transform(Number), z.null()]).optional(),
  volume_size: z.union([z.number().int().positive(), z.string().regex(/^\d+$/).transform(Number)]).optional(),
  delete_on_termination: z.union([z.boolean(), z.enum(['true', 'false', 'True', 'False', '1', '0']).transform((v) => v.toLowerCase() === 'true' || v === '1')]).optional(),
  device_name: z.string().max(255).nullable().optional(),
  volume_type: z.string().max(255).nullable().optional(),
  no_device: z.boolean().optional(),
});

const SchedulerHints = z.looseObject({ group: z.string().max(255).optional() });

export const ServerCreate = z.looseObject({
  'os:scheduler_hints': SchedulerHints.optional(),
  'OS-SCH-HNT:scheduler_hints': SchedulerHints.optional(),
  server: z.looseObject({
    name,
    imageRef: z.string().max(255).optional(),
    flavorRef: ref,
    networks: z.union([z.literal('auto'), z.literal('none'), z.array(NetworkEntry).max(64)]).optional(),
    user_data: z.string().max(65535, 'User data too large. User data must be no larger than 65535 bytes once base64 encoded.').nullable().optional(),
    metadata: metadata.optional(),
    key_name: z.string().max(255).nullable().optional(),
    security_groups: z.array(z.object({ name: z.string().max(255) })).max(64).optional(),
    availability_zone: z.string().max(255).nullable().optional(),
    config_drive: z.union([z.boolean(), z.string().max(10)]).nullable().optional(),
    adminPass: z.string().max(255).optional(),
    'OS-DCF:diskConfig': z.enum(['AUTO', 'MANUAL']).optional(),
    block_device_mapping_v2: z.array(BlockDevice).max(64).optional(),
    min_count: z.union([z.number().int().min(1), z.string().regex(/^\d+$/).transform(Number)]).optional(),
    max_count: z.union([z.number().int().min(1), z.string().regex(/^\d+$/).transform(Number)]).optional(),
    accessIPv4: z.string().max(64).optional(),
    accessIPv6: z.string().max(64).optional(),
    description: z.string().max(255).nullable().optional(),
    tags: z.array(z.string().min(1).max(60)).max(50).optional(),
  }),
});
export type ServerCreateBody = z.infer<typeof ServerCreate>['server'];
export type SchedulerHintsBody = z.infer<typeof SchedulerHints>;

export const ServerUpdate = z.object({
  server: z.looseObject({
    name: name.optional(),
    accessIPv4: z.string().max(64).optional(),
    accessIPv6: z.string().max(64).optional(),
    description: z.string().max(255).nullable().optional(),
  }),
});

export const Rebuild = z.looseObject({
  imageRef: z.string().min(1).max(255),
  name: name.optional(),
  adminPass: z.string().max(255).optional(),
  metadata: metadata.optional(),
  user_data: z.string().max(65535).nullable().optional(),
  key_name: z.string().max(255).nullable().optional(),
  preserve_ephemeral: z.boolean().optional(),
  description: z.string().max(255).nullable().optional(),
});

export const Reboot = z.object({ type: z.enum(['SOFT', 'HARD', 'soft', 'hard']) }).strict();
export const Resize = z.looseObject({ flavorRef: ref });
export const CreateImage = z.looseObject({ name, metadata: metadata.optional() });
export const SecurityGroupAction = z.object({ name: z.string().min(1).max(255) }).strict();

export const MetadataBody = z.object({ metadata }).strict();
export const MetaItemBody = z.object({ meta: metadata }).strict();
export const TagsBody = z.object({ tags: z.array(z.string().min(1).max(60).regex(/^[^,/]*$/, 'tags may not contain , or /')).max(50) }).strict();

export const KeypairCreate = z.object({
  keypair: z.looseObject({
    name: z.string().trim().min(1).max(255).regex(/^[a-zA-Z0-9 _.@\-]+$/, 'Keypair name contains unsafe characters'),
    public_key: z.string().max(16384).optional(),
    type: z.enum(['ssh', 'x509']).optional(),
    user_id: z.string().max(255).optional(),
  }),
});

export const InterfaceAttach = z.object({
  interfaceAttachment: z.looseObject({
    port_id: z.string().max(255).optional(),
    net_id: z.string().max(255).optional(),
    fixed_ips: z.array(z.object({ ip_address: z.string().max(64) })).max(1).optional(),
    tag: z.string().max(60).optional(),
  }),
});

export const VolumeAttach = z.object({
  volumeAttachment: z.looseObject({
    volumeId: z.string().min(1).max(255),
    device: z.string().max(255).nullable().optional(),
    delete_on_termination: z.boolean().optional(),
    tag: z.string().max(60).optional(),
  }),
});

/** POST /flavors (admin), as novaclient's flavors.create sends it; "id": null or "auto" asks for a generated id. */
export const FlavorCreate = z.object({
  flavor: z.object({
    name: z.string().min(1).max(255),
    ram: z.coerce.number().int().min(1).max(1 << 30),
    vcpus: z.coerce.number().int().min(1).max(1 << 16),
    disk: z.coerce.number().int().min(0).max(1 << 30),
    id: z.string().min(1).max(255).nullable().optional(),
    'OS-FLV-EXT-DATA:ephemeral': z.coerce.number().int().min(0).max(1 << 30).optional(),
    swap: z.union([z.literal(''), z.coerce.number().int().min(0).max(1 << 30)]).optional(),
    rxtx_factor: z.coerce.number().positive().max(1e6).optional(),
    'os-flavor-access:is_public': z.boolean().optional(),
    description: z.string().max(65535).nullable().optional(),
  }),
});
export const ExtraSpecsBody = z.object({ extra_specs: z.record(z.string().min(1).max(255), z.string().max(255)) }).strict();
