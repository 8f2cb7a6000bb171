/**
 * The haproxy and keepalived systemd units as Ubuntu 20.04's packages ship
 * them, seen from systemd: which config each reads, what makes a start fail
 * (haproxy's ExecStartPre runs `haproxy -c`: a config it refuses fails the
 * job) and when a start is skipped (keepalived.service has
 * ConditionFileNotEmpty=/etc/keepalived/keepalived.conf: without a config the
 * start "succeeds" and nothing runs). Pure: no host.lb needed.
 */
import type { SimHost } from '../ssh/host/host';
import { HAPROXY_CFG, haproxyAlerts, parseHaproxyConfig, type HaproxyConfig } from './haproxy-config';
import { KEEPALIVED_CONF, parseKeepalivedConfig, type KeepalivedConfig } from './keepalived-config';

export type LbUnit = 'haproxy' | 'keepalived';

export function isLbUnit(unit: string): unit is LbUnit {
  return unit === 'haproxy' || unit === 'keepalived';
}

export type LbUnitStart =
  | { unit: 'haproxy'; config: HaproxyConfig }
  | { unit: 'keepalived'; config: KeepalivedConfig }
  /** systemd's start condition is not met: nothing runs, no failure. */
  | { skip: true }
  /** Why the start job fails (what the daemon printed). */
  | { error: string };

const ROOT = { name: 'root', uid: 0, home: '/root' };

function readConfig(host: SimHost, path: string): string | undefined {
  const node = host.fs.get(path);
  return node?.kind === 'file' ? host.fs.readFile(path, ROOT).toString('utf8') : undefined;
}

/** Reads and checks a unit's config, as its start job would. */
export function prepareLbUnit(host: SimHost, unit: LbUnit): LbUnitStart {
  if (unit === 'haproxy') {
    const text = readConfig(host, HAPROXY_CFG);
    if (text === undefined) return { error: haproxyAlerts([`Cannot open configuration file/directory ${HAPROXY_CFG} : No such file or directory`]).join('\n') };
    const parsed = parseHaproxyConfig(text);
    return 'errors' in parsed ? { error: haproxyAlerts(parsed.errors).join('\n') } : { unit, config: parsed };
  }
  const text = readConfig(host, KEEPALIVED_CONF);
  if (text === undefined || text.length === 0) return { skip: true };
  const parsed = parseKeepalivedConfig(text);
  return 'errors' in parsed ? { error: parsed.errors.map((e) => `Keepalived_vrrp: ${e}`).join('\n') } : { unit, config: parsed };
}
