/** OS::Neutron::Net, OS::Neutron::Subnet, OS::Neutron::Port on top of the simulated IPAM. */
import { nameOf, str, type ResourceBehaviour } from '../behaviour';
import {
  allocationPool, createNetwork, createPort, createSubnet, deleteNetwork, deleteSubnet, networkLabel, releasePort,
  subnetsOfNetwork,
} from '../network';

export const neutronNet: ResourceBehaviour = {
  replaceOn: ['value_specs', 'tenant_id', 'provider:network_type'],
  create(ctx, res) {
    createNetwork(ctx.state.network, res.physicalId, nameOf(res));
  },
  update(ctx, res) {
    const net = ctx.state.network.networks[res.physicalId];
    if (net) net.name = nameOf(res);
  },
  release(state, res) {
    deleteNetwork(state.network, res.physicalId);
  },
  attributes({ state, stack }, res) {
    return {
      name: networkLabel(state.network, res.physicalId),
      status: 'ACTIVE',
      admin_state_up: res.props.admin_state_up ?? true,
      mtu: 1450,
      shared: res.props.shared ?? false,
      subnets: subnetsOfNetwork(state.network, res.physicalId).map((s) => s.id),
      tenant_id: stack.projectId,
    };
  },
};

export const neutronSubnet: ResourceBehaviour = {
  required: ['network', 'cidr'],
  replaceOn: ['network', 'network_id', 'cidr', 'ip_version', 'subnetpool'],
  create(ctx, res) {
    createSubnet(ctx.state.network, {
      id: res.physicalId,
      name: nameOf(res),
      networkRef: str(res.props.network ?? res.props.network_id),
      cidr: str(res.props.cidr),
      gatewayIp: typeof res.props.gateway_ip === 'string' ? res.props.gateway_ip : undefined,
    });
  },
  update(ctx, res) {
    const subnet = ctx.state.network.subnets[res.physicalId];
    if (subnet) subnet.name = nameOf(res);
  },
  release(state, res) {
    deleteSubnet(state.network, res.physicalId);
  },
  attributes({ state }, res) {
    const subnet = state.network.subnets[res.physicalId];
    if (!subnet) return {};
    return {
      name: subnet.name,
      network_id: subnet.networkId,
      cidr: subnet.cidr,
      gateway_ip: subnet.gatewayIp,
      ip_version: res.props.ip_version ?? 4,
      enable_dhcp: res.props.enable_dhcp ?? true,
      allocation_pools: [allocationPool(subnet)],
      dns_nameservers: res.props.dns_nameservers ?? [],
    };
  },
};

export const neutronPort: ResourceBehaviour = {
  required: ['network'],
  replaceOn: ['network', 'network_id'],
  create(ctx, res) {
    createPort(ctx.state.network, {
      id: res.physicalId,
      networkRef: str(res.props.network ?? res.props.network_id),
      fixedIps: res.props.fixed_ips,
      sshCidr: ctx.sshCidr,
    });
  },
  update(ctx, res, oldProps) {
    // New fixed_ips means new addresses; anything else leaves the port as it is.
    if (JSON.stringify(oldProps.fixed_ips) === JSON.stringify(res.props.fixed_ips)) return;
    const old = ctx.state.network.ports[res.physicalId];
    releasePort(ctx.state.network, res.physicalId);
    const port = createPort(ctx.state.network, {
      id: res.physicalId,
      networkRef: str(res.props.network ?? res.props.network_id),
      fixedIps: res.props.fixed_ips,
      sshCidr: ctx.sshCidr,
      mac: old?.mac,
    });
    port.deviceId = old?.deviceId ?? '';
  },
  release(state, res) {
    releasePort(state.network, res.physicalId);
  },
  attributes({ state }, res) {
    const port = state.network.ports[res.physicalId];
    if (!port) return {};
    return {
      name: nameOf(res),
      network_id: port.networkId,
      fixed_ips: port.fixedIps.map((f) => ({ ...f })),
      mac_address: port.mac,
      device_id: port.deviceId,
      device_owner: port.deviceId ? 'compute:nova' : '',
      status: port.deviceId ? 'ACTIVE' : 'DOWN',
      admin_state_up: res.props.admin_state_up ?? true,
      allowed_address_pairs: res.props.allowed_address_pairs ?? [],
      security_groups: res.props.security_groups ?? [],
      subnets: port.fixedIps.map((f) => ({ id: f.subnet_id, cidr: state.network.subnets[f.subnet_id]?.cidr })),
    };
  },
};
