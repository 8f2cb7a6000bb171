/** HEAT_RESOURCE_TYPES: the Heat resource types a VNF package's templates may use (checked by infra/hot/resource-policy.ts). */
/**
 * Servers, ports, networks, subnets, floating IPs, volumes and attachments, server groups, Heat groups and
 * scaling policies; and flavours, which the template generated from a VNFD makes for a VDU that names none
 * (seed 000's private registry VDU, as Tacker does): a flavour reaches no other project's resources.
 */
export const DEFAULT_HEAT_RESOURCE_TYPES: readonly string[] = [
  'OS::Nova::Server', 'OS::Nova::ServerGroup', 'OS::Nova::Flavor',
  'OS::Neutron::Port', 'OS::Neutron::Net', 'OS::Neutron::Subnet', 'OS::Neutron::FloatingIP', 'OS::Neutron::FloatingIPAssociation',
  'OS::Cinder::Volume', 'OS::Cinder::VolumeAttachment',
  'OS::Heat::ResourceGroup', 'OS::Heat::AutoScalingGroup', 'OS::Heat::ScalingPolicy',
];

const TYPE_NAME = /^[A-Za-z0-9]+(::[A-Za-z0-9]+)+$/;

/** HEAT_RESOURCE_TYPES: comma-separated type names, where `default` stands for the default list (e.g. "default,OS::Cinder::VolumeType"). */
export function resourceTypesFromSetting(setting: string | undefined): string[] {
  if (!setting?.trim()) return [...DEFAULT_HEAT_RESOURCE_TYPES];
  const out = new Set<string>();
  for (const entry of setting.split(',').map((e) => e.trim()).filter(Boolean)) {
    if (entry === 'default') DEFAULT_HEAT_RESOURCE_TYPES.forEach((t) => out.add(t));
    else if (TYPE_NAME.test(entry)) out.add(entry);
    else throw new Error(`HEAT_RESOURCE_TYPES: "${entry}" is not a Heat resource type name (such as OS::Nova::Server) nor "default"`);
  }
  return [...out];
}
