/**
 * VRRP (RFC 3768, as keepalived 2.0 runs it) for the whole simulator: no
 * packets, but the same outcomes and timings. keepalived instances join with
 * their virtual router; among the live, healthy members the highest priority
 * holds the VIPs (equal priorities: the higher primary address, as VRRP breaks
 * ties). Members are told (onHolding) when they gain or lose the VIPs.
 *
 * The timers are those of the RFC, per member in the backup state:
 * - a member that joins (or recovers from FAULT) is a backup and takes over
 *   after the Master_Down_Interval = 3 × advert_int + Skew_Time, Skew_Time =
 *   (256 − priority) × advert_int / 256, unless a master of equal or higher
 *   priority advertises meanwhile (keepalived 2.0 starts a `state MASTER`
 *   instance that does not own the address as a backup, so this holds for the
 *   first member too); a higher priority than the master's preempts that way
 *   (keepalived's default: no `nopreempt`, no preempt_delay);
 * - a master that dies silently (power off, deleted server): the backups take
 *   over Master_Down_Interval after the last advertisement it sent;
 * - a master that stops on purpose (keepalived stopped, a clean shutdown, a
 *   failed track_script: FAULT) sends a priority 0 advertisement, and the
 *   backups take over after their Skew_Time.
 *
 * A virtual router is its virtual_router_id together with its addresses:
 * keepalived 2.0 drops advertisements whose address list differs from its own
 * ("ip address associated with VRID not present in MASTER advert"), so two
 * clusters that both use Tacker's VRID 51 with other VIPs never see each
 * other; nor do routers on other networks (the segment: the networks of the
 * host's ports).
 */
import type { Logger } from 'pino';

export interface VrrpMemberSpec {
  /** The host (server id) this keepalived runs on. */
  hostId: string;
  /** The L2 segment its adverts reach: the networks of the host's ports (routers on other networks never meet). */
  segment: string;
  /** Its primary address: the tie-break between equal priorities. */
  address: string;
  /** The vrrp_instance name, for views and logs. */
  instance: string;
  virtualRouterId: number;
  /** The virtual addresses (without prefix length). */
  vips: string[];
  /** 1..255. */
  priority: number;
  advertIntMs: number;
  /** Read at every election and whenever the member calls healthChanged(). */
  healthy(): boolean;
  /** It now holds (true) or no longer holds (false) the VIPs. */
  onHolding(held: boolean, vips: string[]): void;
}

export type VrrpState = 'master' | 'backup' | 'fault';

export interface VrrpMembership {
  readonly state: VrrpState;
  /** The member's health may have changed (its track_script ran). */
  healthChanged(): void;
  /** Leaves the router: `graceful` sends the priority 0 advertisement, `silent` (power off) does not. */
  leave(how: 'graceful' | 'silent'): void;
}

interface Member {
  spec: VrrpMemberSpec;
  router: Router;
  state: VrrpState;
  /** When this backup's Master_Down_Timer expires (none while a master of equal or higher priority advertises). */
  deadline?: number;
  timer?: NodeJS.Timeout;
  masterSince?: number;
  left: boolean;
}

interface Router {
  key: string;
  virtualRouterId: number;
  vips: string[];
  members: Set<Member>;
  master?: Member;
}

/** Timers firing within this many ms of each other count as simultaneous (both would have become master). */
const SIMULTANEOUS_MS = 5;

export function skewMs(priority: number, advertIntMs: number): number {
  return ((256 - priority) * advertIntMs) / 256;
}

export function masterDownMs(priority: number, advertIntMs: number): number {
  return 3 * advertIntMs + skewMs(priority, advertIntMs);
}

function addressValue(a: string): number {
  return a.split('.').reduce((n, part) => n * 256 + (Number(part) || 0), 0);
}

/** a wins over b: higher priority, then higher primary address. */
function outranks(a: Member, b: Member): boolean {
  if (a.spec.priority !== b.spec.priority) return a.spec.priority > b.spec.priority;
  return addressValue(a.spec.address) > addressValue(b.spec.address);
}

export class VrrpRegistry {
  private readonly routers = new Map<string, Router>();
  private closed = false;

  constructor(private readonly log?: Logger) {}

  join(spec: VrrpMemberSpec): VrrpMembership {
    const vips = [...new Set(spec.vips)].sort();
    const key = `${spec.segment}|${spec.virtualRouterId}|${vips.join(',')}`;
    let router = this.routers.get(key);
    if (!router) {
      router = { key, virtualRouterId: spec.virtualRouterId, vips, members: new Set() };
      this.routers.set(key, router);
    }
    const m: Member = { spec, router, state: 'fault', left: false };
    router.members.add(m);
    if (!this.closed && this.healthy(m)) this.toBackup(m);
    const registry = this;
    return {
      get state() {
        return m.state;
      },
      healthChanged: () => this.healthChanged(m),
      leave: (how) => registry.leave(m, how),
    };
  }

  /** The host holding a VIP, if any (the first router's, when routers of several segments claim it). */
  holderOf(vip: string): string | undefined {
    return this.holdersOf(vip)[0];
  }

  /** Every host holding a VIP, one per router that claims it. */
  holdersOf(vip: string): string[] {
    return [...this.routers.values()].flatMap((r) => (r.master && r.vips.includes(vip) ? [r.master.spec.hostId] : []));
  }

  view() {
    const now = Date.now();
    return [...this.routers.values()].map((r) => ({
      virtualRouterId: r.virtualRouterId,
      vips: r.vips,
      master: r.master ? { hostId: r.master.spec.hostId, address: r.master.spec.address, since: new Date(r.master.masterSince!).toISOString() } : null,
      members: [...r.members].map((m) => ({
        hostId: m.spec.hostId,
        address: m.spec.address,
        instance: m.spec.instance,
        priority: m.spec.priority,
        advertIntMs: m.spec.advertIntMs,
        state: m.state,
        takeoverInMs: m.deadline === undefined ? null : Math.max(0, Math.round(m.deadline - now)),
      })),
    }));
  }

  /** Clears every timer; nobody is told anything after this. */
  close(): void {
    this.closed = true;
    for (const r of this.routers.values()) for (const m of r.members) this.clearTimer(m);
    this.routers.clear();
  }

  private healthy(m: Member): boolean {
    try {
      return m.spec.healthy();
    } catch {
      return false;
    }
  }

  private notify(m: Member, held: boolean): void {
    try {
      m.spec.onHolding(held, m.router.vips);
    } catch (err) {
      this.log?.error({ err, host: m.spec.hostId, vrid: m.router.virtualRouterId }, 'VRRP holder callback failed');
    }
  }

  private clearTimer(m: Member): void {
    clearTimeout(m.timer);
    m.timer = undefined;
    m.deadline = undefined;
  }

  /** Arms (or brings forward) a backup's Master_Down_Timer. */
  private arm(m: Member, at: number): void {
    if (this.closed || m.state !== 'backup') return;
    if (m.deadline !== undefined && m.deadline <= at) return;
    clearTimeout(m.timer);
    m.deadline = at;
    m.timer = setTimeout(() => this.expired(m), Math.max(0, at - Date.now()));
    m.timer.unref();
  }

  /** Joining or leaving FAULT: a backup whose timer runs unless a master at least as important advertises. */
  private toBackup(m: Member): void {
    m.state = 'backup';
    const master = m.router.master;
    if (!master || master.spec.priority < m.spec.priority) this.arm(m, Date.now() + masterDownMs(m.spec.priority, m.spec.advertIntMs));
  }

  private expired(m: Member): void {
    m.timer = undefined;
    m.deadline = undefined;
    if (this.closed || m.left || m.state !== 'backup') return;
    const router = m.router;
    const now = Date.now();
    // every backup whose timer ran out at the same moment would have gone master too: the best of them stays
    const due = [m, ...[...router.members].filter((o) => o !== m && o.state === 'backup' && o.deadline !== undefined && o.deadline <= now + SIMULTANEOUS_MS)];
    // one that turned unhealthy without saying so is in FAULT (its healthChanged() brings it back)
    for (const c of due) {
      if (this.healthy(c)) continue;
      this.clearTimer(c);
      c.state = 'fault';
    }
    const candidates = due.filter((c) => c.state === 'backup' && (!router.master || router.master.spec.priority < c.spec.priority));
    const best = candidates.reduce<Member | undefined>((acc, c) => (!acc || outranks(c, acc) ? c : acc), undefined);
    if (best) this.becomeMaster(best);
  }

  private becomeMaster(m: Member): void {
    const router = m.router;
    const old = router.master;
    this.clearTimer(m);
    // the old master hears the better advertisement and steps down first: its addresses are free before they move
    if (old) {
      old.state = 'backup';
      old.masterSince = undefined;
      this.notify(old, false);
    }
    router.master = m;
    m.state = 'master';
    m.masterSince = Date.now();
    this.log?.info({ host: m.spec.hostId, address: m.spec.address, vrid: router.virtualRouterId, vips: router.vips, from: old?.spec.hostId }, 'VRRP master');
    this.notify(m, true);
    // backups that this master's advertisements reset; higher priorities keep their timers (they will preempt)
    for (const b of router.members) if (b !== m && b.state === 'backup' && b.spec.priority <= m.spec.priority) this.clearTimer(b);
  }

  private healthChanged(m: Member): void {
    if (this.closed || m.left) return;
    const healthy = this.healthy(m);
    if (healthy && m.state === 'fault') {
      this.toBackup(m);
    } else if (!healthy && m.state !== 'fault') {
      const wasMaster = m.state === 'master';
      this.clearTimer(m);
      m.state = 'fault';
      if (wasMaster) this.masterGone(m, 'graceful');
    }
  }

  private leave(m: Member, how: 'graceful' | 'silent'): void {
    if (m.left) return;
    m.left = true;
    this.clearTimer(m);
    const router = m.router;
    router.members.delete(m);
    if (router.master === m) this.masterGone(m, how);
    m.state = 'fault';
    if (router.members.size === 0 && this.routers.get(router.key) === router) this.routers.delete(router.key);
  }

  /** The master stopped being one: it lets go of the addresses, the backups' timers run (Skew_Time after a priority 0 advert, else Master_Down_Interval after its last advert). */
  private masterGone(m: Member, how: 'graceful' | 'silent'): void {
    const router = m.router;
    router.master = undefined;
    const since = m.masterSince ?? Date.now();
    m.masterSince = undefined;
    this.notify(m, false);
    this.log?.info({ host: m.spec.hostId, vrid: router.virtualRouterId, how }, 'VRRP master gone');
    if (this.closed) return;
    const now = Date.now();
    const adv = m.spec.advertIntMs;
    const lastAdvert = since + Math.floor((now - since) / adv) * adv;
    for (const b of router.members) {
      if (b === m || b.state !== 'backup') continue;
      const at = how === 'graceful' ? now + skewMs(b.spec.priority, b.spec.advertIntMs) : lastAdvert + masterDownMs(b.spec.priority, b.spec.advertIntMs);
      this.arm(b, at);
    }
  }
}
