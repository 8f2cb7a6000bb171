/**
 * Where a new server runs: the simulated cloud's compute hosts, and Nova's
 * scheduler as far as server groups go. A server of an anti-affinity group
 * goes to a host none of its group's servers are on (or fewer than the
 * group's max_server_per_host), of an affinity group to its group's host;
 * soft policies only prefer. Without a group the least loaded host wins.
 * When no host fits, the server ends in ERROR with Nova's "No valid host".
 * The hosts are names only: every server's machine runs on this machine.
 */
import type { ServerGroupRecord, ServerRecord } from '../store/records';
import type { Store } from '../store/store';

/** Enough for Tacker's HA flavours: 5 masters (their max_size) in anti-affinity, and a heal's replacement beside them. */
export const COMPUTE_HOSTS = ['vimsim-compute-1', 'vimsim-compute-2', 'vimsim-compute-3', 'vimsim-compute-4', 'vimsim-compute-5', 'vimsim-compute-6'] as const;

/** The host a server runs on; '' when none was found (ERROR: no valid host). Servers recorded before hosts existed ran on the first. */
export const hostOf = (s: Pick<ServerRecord, 'host'>): string => s.host ?? COMPUTE_HOSTS[0];

/** The host for a new server of `group` (if any), or undefined: no valid host. */
export function scheduleHost(store: Store, group: ServerGroupRecord | undefined): string | undefined {
  const servers = store.list('servers').filter((s) => s.task_state !== 'deleting' && hostOf(s));
  const load = (host: string, among: ServerRecord[]) => among.filter((s) => hostOf(s) === host).length;
  const byLoad = [...COMPUTE_HOSTS].sort((a, b) => load(a, servers) - load(b, servers));
  if (!group) return byLoad[0];
  const members = servers.filter((s) => group.members.includes(s.id));
  const inGroup = (host: string) => load(host, members);
  switch (group.policy) {
    case 'anti-affinity': {
      const most = group.rules.max_server_per_host ?? 1;
      return byLoad.find((h) => inGroup(h) < most);
    }
    case 'affinity':
      return members.length ? hostOf(members[0]) : byLoad[0];
    case 'soft-anti-affinity':
      return [...byLoad].sort((a, b) => inGroup(a) - inGroup(b))[0];
    case 'soft-affinity':
      return [...byLoad].sort((a, b) => inGroup(b) - inGroup(a))[0];
  }
}
