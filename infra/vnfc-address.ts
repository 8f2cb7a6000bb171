/**
 * The address to reach a VNFC on through one of its CPs: the floating IP
 * bound to the CP's port if there is one, else the port's first fixed IP,
 * read from the Heat resources of the nested stack that holds the VNFC.
 */
import type { HeatClient } from './openstack/heat';
import type { VnfcResourceInfo } from './vnf-info';

export async function vnfcAddress(heat: HeatClient, vnfc: VnfcResourceInfo, cpName: string): Promise<string> {
  if (!vnfc.metadata.stackId) throw new Error(`VNFC ${vnfc.id} has no stack recorded`);
  const [stackName, stackId] = vnfc.metadata.stackId.split('/');
  const port = await heat.getResource(stackName, stackId, cpName);
  const attrs = (port.attributes ?? {}) as { fixed_ips?: { ip_address?: string }[] };
  const fips = (await heat.listResources(stackName, stackId, 0)).filter((r) => r.resource_type === 'OS::Neutron::FloatingIP');
  for (const f of fips) {
    const a = (await heat.getResource(stackName, stackId, f.resource_name)).attributes as { port_id?: string; floating_ip_address?: string } | undefined;
    if (a?.port_id === port.physical_resource_id && a.floating_ip_address) return a.floating_ip_address;
  }
  const ip = attrs.fixed_ips?.[0]?.ip_address;
  if (!ip) throw new Error(`port ${cpName} of VNFC ${vnfc.id} has no IP address`);
  return ip;
}
