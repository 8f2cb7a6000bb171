/** /v2.0/subnets: IPv4 subnets with gateway and allocation pools; 409 SubnetInUse while ports hold addresses. */
import type { RequestHandler, Router } from 'express';
import type { RequestContext } from '../auth/context';
import { badRequest, conflict, forbidden } from '../http/errors';
import { ctxOf } from '../http/service';
import { hostUrl } from '../http/urls';
import { parseBody, param } from '../http/validate';
import type { AllocationPool, SubnetRecord } from '../store/records';
import type { Store } from '../store/store';
import { newUuid } from '../util/ids';
import { isoSeconds } from '../util/time';
import { formatCidr, inCidr, intToIp, ipToInt, parseCidr, type Cidr } from './ip';
import { visibleSubnet } from './lookup';
import { visibleNetwork } from './ports';
import { listBody, selectFields } from './query';
import { createItems, envelope, extensionAttributes, knownChanges, SubnetCreate, SubnetUpdate } from './schemas';
import { subnetView } from './views';
import { subnetVisible } from './visibility';
import { owningProject } from './visibility';

const invalid = (message: string) => badRequest(`Invalid input for operation: ${message}`, 'InvalidInput');

function checkPools(pools: AllocationPool[], cidr: Cidr, gateway: string | null): void {
  const ranges = pools.map((p) => [ipToInt(p.start)!, ipToInt(p.end)!] as const);
  for (const [i, p] of pools.entries()) {
    const [start, end] = ranges[i];
    if (!inCidr(p.start, cidr) || !inCidr(p.end, cidr) || start > end) {
      throw badRequest(`The allocation pool ${p.start}-${p.end} spans beyond the subnet cidr ${formatCidr(cidr)}.`, 'OutOfBoundsAllocationPool');
    }
    if (gateway && ipToInt(gateway)! >= start && ipToInt(gateway)! <= end) {
      throw conflict(`Gateway ip ${gateway} conflicts with allocation pool ${p.start}-${p.end}`, 'GatewayConflictWithAllocationPools');
    }
  }
  for (let i = 0; i < ranges.length; i++) {
    for (let j = i + 1; j < ranges.length; j++) {
      if (ranges[i][0] <= ranges[j][1] && ranges[j][0] <= ranges[i][1]) throw badRequest('Found overlapping allocation pools', 'OverlappingAllocationPools');
    }
  }
}

function newSubnet(store: Store, ctx: RequestContext, raw: unknown): SubnetRecord {
  const spec = parseBody(SubnetCreate, raw);
  extensionAttributes(raw as Record<string, unknown>, SubnetCreate);
  const net = visibleNetwork(store, ctx, spec.network_id);
  if (net.project_id !== ctx.projectId && !ctx.isAdmin) throw forbidden(`Network ${net.id} is not owned by your project`, 'PolicyNotAuthorized');
  if (spec.ip_version === 6) throw invalid('IPv6 subnets are not simulated.');
  if (!spec.cidr) throw badRequest('Bad subnets request: a cidr must be specified in the absence of a subnet pool', 'BadRequest');
  const cidr = parseCidr(spec.cidr);
  if (!cidr || cidr.prefix > 30 || cidr.prefix < 8) throw invalid(`'${spec.cidr.slice(0, 64)}' is not a valid IP subnet.`);
  for (const other of store.list('subnets')) {
    if (other.network_id !== net.id) continue;
    const o = parseCidr(other.cidr)!;
    if (cidr.base < o.base + o.size && o.base < cidr.base + cidr.size) {
      throw badRequest(`Invalid input for operation: Requested subnet with cidr: ${formatCidr(cidr)} for network: ${net.id} overlaps with another subnet.`, 'InvalidInput');
    }
  }
  const gateway = spec.gateway_ip === undefined ? intToIp(cidr.base + 1) : spec.gateway_ip;
  if (gateway !== null && !inCidr(gateway, cidr)) throw invalid(`Gateway IP ${gateway} is not in subnet ${formatCidr(cidr)}.`);
  const last = cidr.base + cidr.size - 2;
  const pools = spec.allocation_pools ?? defaultPools(cidr.base + 1, last, gateway);
  checkPools(pools, cidr, gateway);
  const now = isoSeconds();
  return {
    id: newUuid(),
    name: spec.name ?? '',
    project_id: owningProject(ctx, spec),
    description: spec.description ?? '',
    tags: spec.tags ?? [],
    created_at: now,
    updated_at: now,
    revision_number: 0,
    network_id: net.id,
    ip_version: 4,
    cidr: formatCidr(cidr),
    gateway_ip: gateway,
    allocation_pools: pools,
    enable_dhcp: spec.enable_dhcp ?? true,
    dns_nameservers: spec.dns_nameservers ?? [],
    host_routes: spec.host_routes ?? [],
    ipv6_ra_mode: null,
    ipv6_address_mode: null,
    subnetpool_id: null,
    segment_id: spec.segment_id ?? null,
  };
}

/** Every host address but the gateway, as one or two pools around it. */
function defaultPools(first: number, last: number, gateway: string | null): AllocationPool[] {
  const g = gateway === null ? undefined : ipToInt(gateway)!;
  if (g === undefined || g < first || g > last) return [{ start: intToIp(first), end: intToIp(last) }];
  const pools: AllocationPool[] = [];
  if (g > first) pools.push({ start: intToIp(first), end: intToIp(g - 1) });
  if (g < last) pools.push({ start: intToIp(g + 1), end: intToIp(last) });
  return pools;
}

export function subnetRoutes(router: Router, store: Store, track: (op: string) => RequestHandler): void {
  router.post('/v2.0/subnets', track('subnet.create'), (req, res) => {
    const { items, bulk } = createItems('subnet', 'subnets', req.body);
    const subnets = store.tx(() => items.map((raw) => store.put('subnets', newSubnet(store, ctxOf(res), raw))));
    res.status(201).json(bulk ? { subnets: subnets.map(subnetView) } : { subnet: subnetView(subnets[0]) });
  });

  router.get('/v2.0/subnets', track('subnet.list'), (req, res) => {
    const ctx = ctxOf(res);
    const views = store.list('subnets').filter((s) => subnetVisible(ctx, s, store)).map(subnetView);
    res.json(listBody('subnets', views, req, `${hostUrl(req)}/network/v2.0`));
  });

  router.get('/v2.0/subnets/:id', track('subnet.show'), (req, res) => {
    res.json({ subnet: selectFields(subnetView(visibleSubnet(store, ctxOf(res), param(req, 'id'))), req.query) });
  });

  router.put('/v2.0/subnets/:id', track('subnet.update'), (req, res) => {
    const ctx = ctxOf(res);
    const subnet = visibleSubnet(store, ctx, param(req, 'id'));
    if (!ctx.isAdmin && subnet.project_id !== ctx.projectId) throw forbidden(`Subnet ${subnet.id} is not owned by your project`, 'PolicyNotAuthorized');
    const raw = envelope('subnet', req.body);
    const spec = parseBody(SubnetUpdate, raw);
    extensionAttributes(raw as Record<string, unknown>, SubnetUpdate);
    const updated = { ...subnet, ...knownChanges(spec, SubnetUpdate, ['tags']), updated_at: isoSeconds(), revision_number: subnet.revision_number + 1 } as SubnetRecord;
    checkPools(updated.allocation_pools, parseCidr(updated.cidr)!, updated.gateway_ip);
    store.put('subnets', updated);
    res.json({ subnet: subnetView(updated) });
  });

  router.delete('/v2.0/subnets/:id', track('subnet.delete'), (req, res) => {
    const ctx = ctxOf(res);
    const subnet = visibleSubnet(store, ctx, param(req, 'id'));
    if (!ctx.isAdmin && subnet.project_id !== ctx.projectId) throw forbidden(`Subnet ${subnet.id} is not owned by your project`, 'PolicyNotAuthorized');
    if (store.list('ports').some((p) => p.fixed_ips.some((f) => f.subnet_id === subnet.id))) {
      throw conflict(`Unable to complete operation on subnet ${subnet.id}: One or more ports have an IP allocation from this subnet.`, 'SubnetInUse');
    }
    store.remove('subnets', subnet.id);
    res.status(204).end();
  });
}
