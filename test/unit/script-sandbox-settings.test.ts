/** The sandbox's settings and bookkeeping: uids per running job, where a job may connect to. */
import { endpointsFromSetting, portsFromSetting } from '../../common/endpoints';
import { scriptReach } from '../../mgmt/script-job';
import { UidPool, sandboxModeFromSetting, uidRangeFromSetting } from '../../mgmt/script-sandbox';

test('a uid is not handed out again while its job runs; uids go round', () => {
  const pool = new UidPool(200000, 200002);
  const [a, b, c] = [pool.take(), pool.take(), pool.take()];
  expect([a, b, c]).toEqual([200000, 200001, 200002]);
  expect(() => pool.take()).toThrow(/every uid of SCRIPTS_UIDS \(200000-200002\) is taken/);
  pool.release(b);
  expect(pool.take()).toBe(200001);
  pool.release(a);
  pool.release(c);
  expect(pool.take()).toBe(200002); // the next after the last one given, not the lowest free
});

test('settings are checked, naming the setting', () => {
  expect(uidRangeFromSetting(undefined)).toEqual({ first: 200000, last: 200999 });
  expect(uidRangeFromSetting('300000-300009')).toEqual({ first: 300000, last: 300009 });
  for (const bad of ['0-10', '500-600', '20-10', 'x', '300000']) expect(() => uidRangeFromSetting(bad)).toThrow(/SCRIPTS_UIDS/);
  expect(sandboxModeFromSetting(undefined)).toBe('namespaces');
  expect(sandboxModeFromSetting('off')).toBe('off');
  expect(() => sandboxModeFromSetting('none')).toThrow(/SCRIPTS_SANDBOX must be "namespaces" or "off"/);
  expect(portsFromSetting('P', '22, 6443,22', [1])).toEqual([22, 6443]);
  expect(portsFromSetting('P', '', [2022])).toEqual([2022]);
  expect(() => portsFromSetting('P', '70000', [])).toThrow(/P: "70000" is not a TCP port/);
  expect(endpointsFromSetting('A', '192.0.2.10:5000, [2001:db8::1]:443')).toEqual([{ host: '192.0.2.10', port: 5000 }, { host: '2001:db8::1', port: 443 }]);
  for (const bad of ['registry.example:5000', '192.0.2.10', '[::1]', '300.1.1.1:80']) expect(() => endpointsFromSetting('A', bad)).toThrow(/^A: /);
});

test('a job reaches its instance\'s VNFC and external CP addresses on the VNFC ports, and the operator\'s endpoints', () => {
  const cp = (...addresses: string[]) => ({ cpProtocolInfo: [{ layerProtocol: 'IP_OVER_ETHERNET' as const, ipOverEthernet: { ipAddresses: [{ type: 'IPV4', addresses }] } }] });
  const info = {
    vnfcResourceInfo: [{ vnfcCpInfo: [cp('10.0.0.5'), cp('10.0.1.5')] }, { vnfcCpInfo: [cp('10.0.0.6', 'not-an-ip')] }],
    extCpInfo: [cp('10.0.0.5')],
  } as never;
  const cfg = { scriptsVnfcPorts: [22, 830], scriptsAllow: [{ host: '192.0.2.1', port: 5000 }, { host: '10.0.0.5', port: 22 }] } as never;
  const reach = scriptReach(cfg, info, ['203.0.113.7', undefined]);
  expect(reach.map((e) => `${e.host}:${e.port}`).sort()).toEqual([
    '10.0.0.5:22', '10.0.0.5:830', '10.0.0.6:22', '10.0.0.6:830', '10.0.1.5:22', '10.0.1.5:830', '192.0.2.1:5000', '203.0.113.7:22', '203.0.113.7:830',
  ]);
  expect(scriptReach(cfg, null)).toEqual([{ host: '192.0.2.1', port: 5000 }, { host: '10.0.0.5', port: 22 }]);
});
