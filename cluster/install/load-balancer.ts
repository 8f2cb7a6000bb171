/**
 * The masters' own load balancing of a highly available control plane, as
 * Tacker's HA install script sets it up: haproxy on every master forwards
 * HA_API_PORT to every master's API server (6443, TCP checks), keepalived
 * (VRRP) keeps the cluster's VIP on one live master whose haproxy runs. The
 * files are rewritten whenever the masters change (a heal, a scale); a
 * service is restarted only when its file changed.
 */
import { createHash } from 'node:crypto';
import type { SshSession } from '../../ssh';
import { shellQuote } from '../../ssh';
import { HA_API_PORT } from '../../model/cluster';
import { writeFile } from './steps';

const MIN = 60_000;
export const HAPROXY_CFG = '/etc/haproxy/haproxy.cfg';
export const KEEPALIVED_CONF = '/etc/keepalived/keepalived.conf';

export interface LoadBalancerInput {
  clusterId: string;
  vip: string;
  /** Every master, in the cluster's order (the first gets the highest VRRP priority). */
  masters: { name: string; address: string }[];
  /** The master being configured. */
  self: string;
}

export function haproxyConfig(masters: LoadBalancerInput['masters']): string {
  return [
    'global',
    '    log /dev/log local0',
    '    daemon',
    '',
    'defaults',
    '    log     global',
    '    mode    tcp',
    '    option  tcplog',
    '    timeout connect 5s',
    '    timeout client  1h',
    '    timeout server  1h',
    '',
    'frontend kubernetes-apiserver',
    `    bind *:${HA_API_PORT}`,
    '    default_backend kubernetes-apiserver',
    '',
    'backend kubernetes-apiserver',
    '    balance roundrobin',
    '    option  redispatch',
    ...masters.map((m) => `    server ${m.name} ${m.address}:6443 check inter 2s fall 3 rise 2`),
    '',
  ].join('\n');
}

/** One VRRP router per cluster: two clusters on one network must not share a router id (1-255). */
export function virtualRouterId(clusterId: string): number {
  return (createHash('sha256').update(clusterId).digest()[0] % 255) + 1;
}

export function keepalivedConfig(c: LoadBalancerInput, iface: string): string {
  const index = Math.max(0, c.masters.findIndex((m) => m.name === c.self));
  return [
    'vrrp_script chk_haproxy {',
    '    script "killall -0 haproxy"',
    '    interval 2',
    '    fall 2',
    '}',
    'vrrp_instance kubernetes_api {',
    '    state BACKUP',
    `    interface ${iface}`,
    `    virtual_router_id ${virtualRouterId(c.clusterId)}`,
    // Tacker's 103 - index: the first master holds the VIP while it is healthy
    `    priority ${Math.max(1, 103 - index)}`,
    '    advert_int 1',
    '    virtual_ipaddress {',
    `        ${c.vip}`,
    '    }',
    '    track_script {',
    '        chk_haproxy',
    '    }',
    '}',
    '',
  ].join('\n');
}

/** Writes a file and restarts its service when its content changed (or the service is not running). */
async function configure(s: SshSession, unit: string, file: string, content: string): Promise<void> {
  const current = await s.exec(`cat ${shellQuote(file)}`, { sudo: true, timeoutMs: MIN });
  const active = (await s.exec(`systemctl is-active ${unit}`, { sudo: true, timeoutMs: MIN })).stdout.trim() === 'active';
  if (current.code === 0 && current.stdout === content && active) return;
  await writeFile(s, file, content);
  await s.run(`systemctl enable ${unit} && systemctl restart ${unit}`, { sudo: true, timeoutMs: 3 * MIN });
  const r = await s.exec(`systemctl is-active ${unit}`, { sudo: true, timeoutMs: MIN });
  if (r.code !== 0) throw new Error(`${unit} is not active after its restart (${(r.stdout + r.stderr).trim().slice(0, 200) || `exit ${r.code}`})`);
}

/** The interface that carries the node's address (keepalived sends its adverts there). */
async function interfaceOf(s: SshSession, address: string): Promise<string> {
  const r = await s.run('ip -o -4 addr show', { timeoutMs: MIN });
  const line = r.stdout.split('\n').find((l) => l.split(/\s+/)[3]?.split('/')[0] === address);
  if (!line) throw new Error(`no interface has the node's address ${address} (ip -o -4 addr show)`);
  return line.split(/\s+/)[1];
}

/** haproxy and keepalived installed and configured for the masters as they are now. */
export async function configureLoadBalancer(s: SshSession, c: LoadBalancerInput, aptEnv: string): Promise<void> {
  const self = c.masters.find((m) => m.name === c.self);
  if (!self) throw new Error(`${c.self} is not one of the masters`);
  // etcd-client: etcdctl on every master of the HA flavours, for the operator and removeEtcdMember
  await s.run(`${aptEnv} apt-get install -y haproxy keepalived etcd-client`, { sudo: true, timeoutMs: 20 * MIN });
  await configure(s, 'haproxy', HAPROXY_CFG, haproxyConfig(c.masters));
  await configure(s, 'keepalived', KEEPALIVED_CONF, keepalivedConfig(c, await interfaceOf(s, self.address)));
}
