/**
 * The files a highly available control plane is made from (cluster/install):
 * haproxy in front of every master, keepalived's VRRP instance with Tacker's
 * priorities and a router id of the cluster's own, the kubeadm configs with
 * the VIP's endpoint and a control-plane join, the kubelet's Lease under a
 * short grace period.
 */
import { parse, parseAllDocuments } from 'yaml';
import { kubeadmInitConfig, kubeadmJoinConfig } from '../../cluster/install/files';
import { haproxyConfig, keepalivedConfig, virtualRouterId } from '../../cluster/install/load-balancer';
import { endpointHost, endpointHostPort } from '../../model/cluster';

const masters = [{ name: 'masternode-a', address: '127.21.0.5' }, { name: 'masternode-b', address: '127.21.0.6' }, { name: 'masternode-c', address: '127.21.0.7' }];
const settings = { kubeVersion: '1.37.2', podCidr: '192.168.0.0/16', serviceCidr: '10.96.0.0/12', registries: [], vip: '127.24.0.9' };

test('an endpoint is a host (a master API, 6443) or host:port (the VIP, 16443)', () => {
  expect(endpointHostPort('127.21.0.5')).toBe('127.21.0.5:6443');
  expect(endpointHostPort('127.24.0.9:16443')).toBe('127.24.0.9:16443');
  expect(endpointHost('127.24.0.9:16443')).toBe('127.24.0.9');
});

test('haproxy forwards 16443 to every master API with health checks', () => {
  const cfg = haproxyConfig(masters);
  expect(cfg).toContain('bind *:16443');
  for (const m of masters) expect(cfg).toContain(`server ${m.name} ${m.address}:6443 check`);
  expect(cfg).toMatch(/mode\s+tcp/);
});

test("keepalived: Tacker's priorities (103 for the first master, down from there), one router id per cluster", () => {
  const conf = (self: string) => keepalivedConfig({ clusterId: 'c-1', vip: settings.vip, masters, self }, 'ens3');
  expect(conf('masternode-a')).toContain('priority 103');
  expect(conf('masternode-c')).toContain('priority 101');
  expect(conf('masternode-b')).toMatch(/virtual_ipaddress \{\s+127\.24\.0\.9\s+\}/);
  expect(conf('masternode-b')).toContain('interface ens3');
  const ids = new Set(Array.from({ length: 40 }, (_, i) => virtualRouterId(`cluster-${i}`)));
  expect([...ids].every((id) => id >= 1 && id <= 255)).toBe(true);
  expect(ids.size).toBeGreaterThan(30); // spread, not one fixed 51 for every cluster
  expect(virtualRouterId('c-1')).toBe(virtualRouterId('c-1'));
});

test('kubeadm: init with the VIP as control-plane endpoint and SAN, a control-plane join with its own advertise address', () => {
  const [, cluster] = parseAllDocuments(kubeadmInitConfig({ nodeName: 'masternode-a', advertiseAddress: '127.21.0.5', endpoint: '127.24.0.9:16443', settings })).map((d) => d.toJS());
  expect(cluster.controlPlaneEndpoint).toBe('127.24.0.9:16443');
  expect(cluster.apiServer.certSANs).toEqual(['127.24.0.9', '127.21.0.5']);
  const join = parse(kubeadmJoinConfig({ nodeName: 'masternode-b', endpoint: '127.24.0.9:16443', token: 'abcdef.0123456789abcdef', caCertHash: 'sha256:00', controlPlane: { advertiseAddress: '127.21.0.6' } }));
  expect(join.discovery.bootstrapToken.apiServerEndpoint).toBe('127.24.0.9:16443');
  expect(join.controlPlane).toEqual({ localAPIEndpoint: { advertiseAddress: '127.21.0.6', bindPort: 6443 } });
  // a worker's join has no controlPlane section; a one-master cluster keeps port 6443
  const worker = parse(kubeadmJoinConfig({ nodeName: 'w', endpoint: '127.21.0.5', token: 'abcdef.0123456789abcdef', caCertHash: 'sha256:00' }));
  expect(worker.controlPlane).toBeUndefined();
  expect(worker.discovery.bootstrapToken.apiServerEndpoint).toBe('127.21.0.5:6443');
});

test("a shortened node-monitor-grace-period shortens the kubelet's Lease with it (renewed four times within it); Kubernetes' default is kept otherwise", () => {
  const kubelet = (args?: Record<string, string>) => parseAllDocuments(kubeadmInitConfig({ nodeName: 'm', advertiseAddress: '127.21.0.5', endpoint: '127.21.0.5', settings: { ...settings, ...(args ? { controllerManagerArgs: args } : {}) } }))
    .map((d) => d.toJS()).find((d) => d.kind === 'KubeletConfiguration');
  expect(kubelet({ 'node-monitor-grace-period': '10s' }).nodeLeaseDurationSeconds).toBe(10);
  expect(kubelet({ 'node-monitor-grace-period': '2.5s' }).nodeLeaseDurationSeconds).toBe(2);
  expect(kubelet({ 'node-monitor-grace-period': '1m' }).nodeLeaseDurationSeconds).toBeUndefined();
  expect(kubelet().nodeLeaseDurationSeconds).toBeUndefined();
});
