/** The registry of built-in resource types the simulator can materialise. */
import type { ResourceRecord } from '../../state/model';
import type { ResourceBehaviour } from '../behaviour';
import { cinderVolume, cinderVolumeType } from './cinder';
import { heatValue, placeholder, randomString, scalingPolicy } from './heat';
import { autoScalingGroup, resourceGroup, templateResource } from './nested';
import { neutronNet, neutronPort, neutronSubnet } from './neutron';
import { novaServer, novaServerGroup } from './nova';

const BUILTIN_TYPES: Record<string, ResourceBehaviour> = {
  'OS::Nova::Server': novaServer,
  'OS::Nova::ServerGroup': novaServerGroup,
  'OS::Neutron::Net': neutronNet,
  'OS::Neutron::Subnet': neutronSubnet,
  'OS::Neutron::Port': neutronPort,
  'OS::Cinder::Volume': cinderVolume,
  'OS::Cinder::VolumeType': cinderVolumeType,
  'OS::Heat::AutoScalingGroup': autoScalingGroup,
  'OS::Heat::ResourceGroup': resourceGroup,
  'OS::Heat::ScalingPolicy': scalingPolicy,
  'OS::Heat::Value': heatValue,
  'OS::Heat::RandomString': randomString,
  // Accepted so common templates validate; they only get an id.
  'OS::Heat::None': placeholder,
  'OS::Heat::SoftwareConfig': placeholder,
  'OS::Heat::CloudConfig': placeholder,
  'OS::Heat::MultipartMime': placeholder,
  'OS::Neutron::SecurityGroup': placeholder,
  'OS::Neutron::Router': placeholder,
  'OS::Neutron::RouterInterface': placeholder,
  'OS::Nova::Flavor': placeholder,
  'OS::Nova::KeyPair': placeholder,
};

export function isBuiltinType(type: string): boolean {
  return type in BUILTIN_TYPES;
}

/** Prefix of ResourceRecord.impl for template resources. */
export const FILE_IMPL_PREFIX = 'file:';

export function behaviourOf(res: Pick<ResourceRecord, 'impl'>): ResourceBehaviour {
  if (res.impl.startsWith(FILE_IMPL_PREFIX)) return templateResource;
  const behaviour = BUILTIN_TYPES[res.impl];
  if (!behaviour) throw new Error(`no behaviour for resource implementation ${res.impl}`);
  return behaviour;
}
