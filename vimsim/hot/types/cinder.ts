/** OS::Cinder::Volume and OS::Cinder::VolumeType: bookkeeping only, no storage. */
import { nameOf, str, type ResourceBehaviour } from '../behaviour';

export const cinderVolume: ResourceBehaviour = {
  // Heat extends, renames and retypes a volume in place; the rest needs a new volume.
  replaceOn: ['image', 'source_volid', 'snapshot_id', 'backup_id', 'availability_zone', 'imageRef'],
  create() {},
  attributes(_view, res) {
    const name = nameOf(res);
    const size = typeof res.props.size === 'number' ? res.props.size : Number(res.props.size ?? 1) || 1;
    return {
      name,
      display_name: name,
      size,
      status: 'available',
      volume_type: str(res.props.volume_type),
      bootable: res.props.image ? 'true' : 'false',
      metadata: res.props.metadata ?? {},
      availability_zone: str(res.props.availability_zone) || 'nova',
      attachments: [],
      created_at: res.createdAt,
    };
  },
};

export const cinderVolumeType: ResourceBehaviour = {
  required: ['name'],
  replaceOn: [],
  create() {},
  attributes(_view, res) {
    return { name: str(res.props.name), metadata: res.props.metadata ?? {}, is_public: res.props.is_public ?? true };
  },
};
