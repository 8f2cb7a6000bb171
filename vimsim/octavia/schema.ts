/**
 * What the Octavia provider (runtime/openstack/octavia_provider) sends: a
 * load balancer's whole graph, a VIP port request, a member address check.
 * LIMITS bound what one tenant's load balancers may ask of the shared
 * simulator process (as lb/haproxy-config.ts does for the machines' haproxy).
 */
import { z } from 'zod';

export const LIMITS = {
  loadBalancersPerProject: 16,
  loadBalancers: 256,
  listenersPerLb: 32,
  poolsPerLb: 32,
  membersPerPool: 64,
  minDelayS: 1,
  maxDelayS: 3600,
};

const id = z.string().min(1).max(64).regex(/^[A-Za-z0-9-]+$/);
const ipv4 = z.string().max(15).regex(/^\d{1,3}(\.\d{1,3}){3}$/);
const port = z.number().int().min(1).max(65535);
const seconds = z.number().int().min(1).max(86_400);
/** Octavia's listener timeouts are milliseconds (timeout_client_data ...), up to 24 days; 0 = none. */
const millis = z.number().int().min(0).max(2_073_600_000).nullable().optional();

export const HealthMonitorSpec = z.object({
  id,
  type: z.enum(['TCP', 'HTTP', 'HTTPS', 'TLS-HELLO', 'PING']),
  delay: z.number().int().min(LIMITS.minDelayS).max(LIMITS.maxDelayS),
  timeout: seconds,
  max_retries: z.number().int().min(1).max(10),
  max_retries_down: z.number().int().min(1).max(10),
  admin_state_up: z.boolean(),
}).strict();

export const MemberSpec = z.object({
  id,
  address: ipv4,
  protocol_port: port,
  subnet_id: id.nullable().optional(),
  weight: z.number().int().min(0).max(256),
  admin_state_up: z.boolean(),
  backup: z.boolean().optional(),
}).strict();

export const PoolSpec = z.object({
  id,
  lb_algorithm: z.enum(['ROUND_ROBIN', 'LEAST_CONNECTIONS', 'SOURCE_IP', 'SOURCE_IP_PORT']),
  admin_state_up: z.boolean(),
  members: z.array(MemberSpec).max(LIMITS.membersPerPool),
  healthmonitor: HealthMonitorSpec.nullable().optional(),
}).strict();

export const ListenerSpec = z.object({
  id,
  protocol: z.enum(['TCP', 'HTTP', 'HTTPS']),
  protocol_port: port,
  admin_state_up: z.boolean(),
  default_pool_id: id.nullable().optional(),
  timeout_client_data: millis,
  timeout_member_connect: millis,
  timeout_member_data: millis,
}).strict();

export const LoadBalancerSpec = z.object({
  /** The provider's digest of what it sent: it PUTs again when the simulator shows another one (or none, after a restart). */
  revision: z.string().min(1).max(64),
  project_id: id,
  admin_state_up: z.boolean(),
  vip: z.object({ address: ipv4, port_id: id }).strict(),
  listeners: z.array(ListenerSpec).max(LIMITS.listenersPerLb),
  pools: z.array(PoolSpec).max(LIMITS.poolsPerLb),
}).strict();
export type LoadBalancerSpec = z.infer<typeof LoadBalancerSpec>;
export type PoolSpec = z.infer<typeof PoolSpec>;
export type ListenerSpec = z.infer<typeof ListenerSpec>;

export const VipPortRequest = z.object({
  loadbalancer_id: id,
  project_id: id,
  subnet_id: id.nullable().optional(),
  network_id: id.nullable().optional(),
  ip_address: ipv4.nullable().optional(),
}).strict();
export type VipPortRequest = z.infer<typeof VipPortRequest>;

export const MemberCheck = z.object({
  project_id: id,
  address: ipv4,
  subnet_id: id.nullable().optional(),
}).strict();
