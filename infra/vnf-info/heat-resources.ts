/**
 * Finding the VNFCs in Heat's nested resource list. A server is a VNFC when
 * its resource_name is a VDU id; its ports and volumes are the resources
 * named after that VDU's CPs / storages in the same (nested) stack.
 */
import type { VnfdFlavour } from '../../model/vnfd';
import { vnfcIndex } from '../hot/layout';
import { vduCpIds } from '../hot/nfv-param';
import type { HeatResource } from './heat-resource';

export interface FoundVnfc {
  vduId: string;
  server: HeatResource;
  /** parent_resource ("VDU1-0", an ASG member name) or, for a server in the top stack, its own name. */
  heatResourceName: string;
  /** n of "<vduId>-<n>" names (StandardUserData-style VNFCs). */
  index?: number;
  stackId?: string;
  /** The AutoScalingGroup member (template resource) holding the server, when there is one. */
  member?: HeatResource;
  ports: Record<string, HeatResource>;
  volumes: Record<string, HeatResource>;
}

const stackLink = (r: HeatResource) => r.links?.find((l) => l.rel === 'stack')?.href;

/** Resources of one stack share their 'stack' link; without links, their parent_resource. */
const stackKey = (r: HeatResource) => stackLink(r) ?? `parent:${r.parent_resource ?? ''}`;

/** "stack_name/stack_id" of a 'stack' link. */
export const stackRefOf = (r: HeatResource): string | undefined => stackLink(r)?.replace(/\/+$/, '').split('/').slice(-2).join('/');

/** "stack_name/stack_id" from the 'stack' link (as Tacker records it), else the parent's nested stack id. */
function stackIdOf(server: HeatResource, all: HeatResource[]): string | undefined {
  const href = stackLink(server);
  if (href) return href.replace(/\/+$/, '').split('/').slice(-2).join('/');
  const parent = server.parent_resource && all.find((r) => r.resource_name === server.parent_resource && r.physical_resource_id);
  return parent ? parent.physical_resource_id : undefined;
}

/** The group member resource whose nested stack holds the server. */
function memberOf(resources: HeatResource[], name: string, stackId: string): HeatResource | undefined {
  const nestedId = stackId.split('/').pop();
  return resources.find((r) => r.resource_name === name && r.physical_resource_id === nestedId);
}

/** VNFCs ordered by VDU (VNFD order), then index, then name. Resources not yet created (no physical id) are skipped. */
export function findVnfcs(flavour: VnfdFlavour, resources: HeatResource[]): FoundVnfc[] {
  const existing = resources.filter((r) => r.physical_resource_id);
  const found: FoundVnfc[] = [];
  for (const server of existing) {
    if (server.resource_type !== 'OS::Nova::Server' || !(server.resource_name in flavour.vdus)) continue;
    const vduId = server.resource_name;
    const key = stackKey(server);
    const sameStack = existing.filter((r) => stackKey(r) === key);
    const pick = (type: string, names: string[]) =>
      Object.fromEntries(names.flatMap((n) => {
        const r = sameStack.find((x) => x.resource_type === type && x.resource_name === n);
        return r ? [[n, r]] : [];
      }));
    const heatResourceName = server.parent_resource ?? server.resource_name;
    const stackId = stackIdOf(server, resources);
    const index = vnfcIndex(heatResourceName, vduId);
    found.push({
      vduId,
      server,
      heatResourceName,
      index,
      stackId,
      member: index === undefined && stackId ? memberOf(resources, heatResourceName, stackId) : undefined,
      ports: pick('OS::Neutron::Port', vduCpIds(flavour, vduId)),
      volumes: pick('OS::Cinder::Volume', flavour.vdus[vduId].storageIds),
    });
  }
  const vduOrder = Object.keys(flavour.vdus);
  return found.sort((a, b) =>
    vduOrder.indexOf(a.vduId) - vduOrder.indexOf(b.vduId)
    || (a.index ?? Infinity) - (b.index ?? Infinity)
    || (a.heatResourceName < b.heatResourceName ? -1 : a.heatResourceName > b.heatResourceName ? 1 : 0));
}
