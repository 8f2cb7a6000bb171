/**
 * OS::Nova::Server and OS::Nova::ServerGroup. A server's addresses come from
 * its ports; `networks` entries given as a network (not a port) get an
 * implicit port, as Nova does. Property changes are applied in place
 * (rebuild/resize keep the server id) and show up in the attributes.
 */
import { randomBytes } from 'node:crypto';
import type { NetworkState, ResourceRecord, SimState } from '../../state/model';
import { generateHostKey } from '../../ssh/hostkey';
import { newUuid } from '../../util/ids';
import { nameOf, str, type ResourceBehaviour, type ResourceContext } from '../behaviour';
import { createPort, releasePort } from '../network';
import { isPlainObject } from '../template';

interface NetworkEntry {
  port?: string;
  network?: string;
  subnet?: string;
  fixed_ip?: string;
}

function networkEntries(props: Record<string, unknown>): NetworkEntry[] {
  const raw = props.networks;
  if (!Array.isArray(raw)) return [];
  return raw.filter(isPlainObject).map((e) => ({
    port: e.port === undefined || e.port === null ? undefined : str(e.port),
    network: e.network === undefined || e.network === null ? undefined : str(e.network ?? e.uuid),
    subnet: e.subnet === undefined || e.subnet === null ? undefined : str(e.subnet),
    fixed_ip: e.fixed_ip === undefined || e.fixed_ip === null ? undefined : str(e.fixed_ip),
  }));
}

/** Port ids in the order of the `networks` property (explicit or implicit ports). */
function portIdsOf(res: ResourceRecord): string[] {
  return (res.data.portIds as string[] | undefined) ?? [];
}

function attachPorts(ctx: ResourceContext, res: ResourceRecord): void {
  const net = ctx.state.network;
  const portIds: string[] = [];
  const implicit: string[] = [];
  for (const entry of networkEntries(res.props)) {
    if (entry.port) {
      portIds.push(entry.port);
      const port = net.ports[entry.port];
      if (port) port.deviceId = res.physicalId;
    } else if (entry.network || entry.subnet) {
      const networkRef = entry.network ?? net.subnets[entry.subnet!]?.networkId ?? '';
      const fixedIps = entry.fixed_ip ? [{ ip_address: entry.fixed_ip, subnet: entry.subnet }] : entry.subnet ? [{ subnet: entry.subnet }] : [];
      const port = createPort(net, { id: newUuid(), networkRef, fixedIps, sshCidr: ctx.sshCidr });
      port.deviceId = res.physicalId;
      portIds.push(port.id);
      implicit.push(port.id);
    }
  }
  res.data.portIds = portIds;
  res.data.implicitPortIds = implicit;
}

function detachPorts(net: NetworkState, res: ResourceRecord): void {
  for (const id of portIdsOf(res)) {
    if (net.ports[id]?.deviceId === res.physicalId) net.ports[id].deviceId = '';
  }
  for (const id of (res.data.implicitPortIds as string[] | undefined) ?? []) releasePort(net, id);
  res.data.portIds = [];
  res.data.implicitPortIds = [];
}

function addressesOf(state: SimState, res: ResourceRecord) {
  const addresses: Record<string, Record<string, unknown>[]> = {};
  const networks: Record<string, string[]> = {};
  for (const id of portIdsOf(res)) {
    const port = state.network.ports[id];
    if (!port) continue;
    for (const fixed of port.fixedIps) {
      (addresses[port.networkLabel] ??= []).push({
        version: 4,
        addr: fixed.ip_address,
        'OS-EXT-IPS:type': 'fixed',
        'OS-EXT-IPS-MAC:mac_addr': port.mac,
        port: port.id,
      });
      (networks[port.networkLabel] ??= []).push(fixed.ip_address);
      if (port.networkId !== port.networkLabel) (networks[port.networkId] ??= []).push(fixed.ip_address);
    }
  }
  return { addresses, networks };
}

export const novaServer: ResourceBehaviour = {
  required: ['flavor'],
  replaceOn: [],
  create(ctx, res) {
    res.data.instanceName = `instance-${randomBytes(4).toString('hex')}`;
    // Its SSH host key (vimsim/ssh): born with the server, so a replacement presents a new one.
    res.data.sshHostKey = generateHostKey();
    attachPorts(ctx, res);
  },
  update(ctx, res, oldProps) {
    if (JSON.stringify(oldProps.networks) !== JSON.stringify(res.props.networks)) {
      detachPorts(ctx.state.network, res);
      attachPorts(ctx, res);
    }
  },
  release(state, res) {
    detachPorts(state.network, res);
  },
  attributes({ state }, res) {
    const { addresses, networks } = addressesOf(state, res);
    const firstAddress = Object.values(addresses)[0]?.[0]?.addr ?? '';
    const name = nameOf(res);
    const image = str(res.props.image);
    const flavor = str(res.props.flavor);
    return {
      name,
      first_address: firstAddress,
      accessIPv4: firstAddress,
      accessIPv6: '',
      addresses,
      networks,
      instance_name: res.data.instanceName,
      // Not Heat attributes, but handy: the image and flavor the server runs now.
      image,
      flavor,
      show: {
        id: res.physicalId,
        name,
        status: 'ACTIVE',
        image: image ? { id: image } : '',
        flavor: { id: flavor, original_name: flavor },
        addresses,
        metadata: res.props.metadata ?? {},
        key_name: res.props.key_name ?? null,
        'OS-EXT-AZ:availability_zone': str(res.props.availability_zone) || 'nova',
        'OS-EXT-SRV-ATTR:instance_name': res.data.instanceName,
        'OS-EXT-STS:vm_state': 'active',
        created: res.createdAt,
        updated: res.updatedAt,
      },
    };
  },
};

export const novaServerGroup: ResourceBehaviour = {
  replaceOn: '*',
  create() {},
  attributes(_view, res) {
    return { name: nameOf(res), policies: res.props.policies ?? [] };
  },
};
