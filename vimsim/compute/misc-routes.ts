/** /limits and /os-availability-zone: the numbers Heat checks before a create, and the one zone with its compute hosts. */
import type { RequestHandler, Router } from 'express';
import { ctxOf } from '../http/service';
import type { Store } from '../store/store';
import { COMPUTE_HOSTS } from './scheduler';
import { ZONE } from './server-create';

export function miscRoutes(router: Router, store: Store, track: (op: string) => RequestHandler): void {
  router.get('/v2.1/limits', track('limits'), (_req, res) => {
    const ctx = ctxOf(res);
    const mine = store.list('servers').filter((s) => s.project_id === ctx.projectId);
    const flavors = mine.map((s) => store.get('flavors', s.flavor_id));
    res.json({
      limits: {
        rate: [],
        absolute: {
          maxServerMeta: 128, maxPersonality: 5, maxPersonalitySize: 10240, maxImageMeta: 128, maxTotalKeypairs: 100,
          maxSecurityGroups: 10, maxSecurityGroupRules: 20, maxServerGroups: 10, maxServerGroupMembers: 10,
          maxTotalCores: 1000, maxTotalInstances: 1000, maxTotalRAMSize: 5120000, maxTotalFloatingIps: 10,
          totalCoresUsed: flavors.reduce((n, f) => n + (f?.vcpus ?? 0), 0),
          totalInstancesUsed: mine.length,
          totalRAMUsed: flavors.reduce((n, f) => n + (f?.ram ?? 0), 0),
          totalSecurityGroupsUsed: 0, totalFloatingIpsUsed: 0, totalServerGroupsUsed: 0,
        },
      },
    });
  });
  router.get('/v2.1/os-availability-zone', track('availability_zone.list'), (_req, res) => {
    res.json({ availabilityZoneInfo: [{ zoneName: ZONE, zoneState: { available: true }, hosts: null }] });
  });
  router.get('/v2.1/os-availability-zone/detail', track('availability_zone.detail'), (_req, res) => {
    const service = { available: true, active: true, updated_at: new Date().toISOString() };
    res.json({
      availabilityZoneInfo: [
        { zoneName: 'internal', zoneState: { available: true }, hosts: { 'vimsim-controller': { 'nova-conductor': service, 'nova-scheduler': service } } },
        { zoneName: ZONE, zoneState: { available: true }, hosts: Object.fromEntries(COMPUTE_HOSTS.map((h) => [h, { 'nova-compute': service }])) },
      ],
    });
  });
}
