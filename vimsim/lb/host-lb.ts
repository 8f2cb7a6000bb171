/**
 * The load-balancing side of one simulated host (`host.lb`): its haproxy and
 * keepalived daemons, the VIPs it holds now, and its power. systemctl (through
 * host/services.ts) starts, stops and reloads the daemons; the SSH manager
 * powers the host off (a clean shutdown: keepalived lets go of the VIPs with a
 * priority 0 advertisement), on (enabled units start again: SimHost.reboot)
 * and destroys it (a deleted server: silent, the backups wait out the
 * Master_Down_Interval).
 */
import type { Logger } from 'pino';
import type { SimHost } from '../ssh/host/host';
import { readSysctl } from '../ssh/host/kernel';
import type { HaproxyConfig } from './haproxy-config';
import { HaproxyService } from './haproxy';
import type { KeepalivedConfig } from './keepalived-config';
import { KeepalivedService } from './keepalived';
import type { LbUnit } from './units';
import type { VrrpRegistry } from './vrrp';

export interface HostPorts {
  segment(): string;
  mayUse(address: string): boolean;
}

/** A host carries its HostLb (ssh/host/host.ts knows nothing of it: the host is below this module). */
declare module '../ssh/host/host' {
  interface SimHost {
    /** The host's haproxy, keepalived and the VIPs it holds, set at boot by the SSH manager. */
    lb?: HostLb;
  }
}

export class HostLb {
  /** VIP → how many of this host's vrrp_instances hold it. */
  private readonly held = new Map<string, number>();
  private powered = true;
  private haproxy?: HaproxyService;
  private keepalived?: KeepalivedService;
  /** Per unit, the last start or stop under way: the next waits for it (a restart binds what its stop released). */
  private readonly queue = new Map<LbUnit, Promise<string | undefined>>();

  constructor(
    readonly host: SimHost,
    readonly vrrp: VrrpRegistry,
    private readonly log: Logger,
    /** What Neutron lets this server's ports carry: their networks, and whether an address may be used on them (port security). */
    private readonly ports: HostPorts = { segment: () => '', mayUse: () => true },
  ) {}

  /** The VIPs this host's keepalived holds now (`ip addr` shows them on the NIC). */
  heldVips(): string[] {
    return [...this.held.keys()];
  }

  /** The host's own address and the VIPs it holds now. */
  localAddresses(): string[] {
    return [this.host.address, ...this.held.keys()];
  }

  private enqueue(unit: LbUnit, step: () => Promise<string | undefined>): Promise<string | undefined> {
    const next = (this.queue.get(unit) ?? Promise.resolve(undefined)).catch(() => undefined).then(step);
    this.queue.set(unit, next);
    return next;
  }

  /** Starts a daemon with a config its unit already checked; binding goes on in the background (settled() tells how it ended). */
  start(unit: 'haproxy', config: HaproxyConfig): void;
  start(unit: 'keepalived', config: KeepalivedConfig): void;
  start(unit: LbUnit, config: HaproxyConfig | KeepalivedConfig): void {
    if (!this.powered) return;
    if (unit === 'keepalived') {
      this.keepalived?.stop('graceful');
      this.keepalived = new KeepalivedService(
        {
          serverId: this.host.serverId,
          address: this.host.address,
          segment: () => this.ports.segment(),
          unitActive: (u) => Boolean(this.host.services.get(u)?.active),
          vipsChanged: (vips, held) => this.vipsChanged(vips, held),
        },
        config as KeepalivedConfig,
        this.vrrp,
        this.log,
      );
      this.keepalived.start();
      return;
    }
    const svc = new HaproxyService(
      { serverId: this.host.serverId, address: this.host.address, localAddresses: () => this.localAddresses(), nonlocalBind: () => readSysctl(this.host, 'net.ipv4.ip_nonlocal_bind') === '1' },
      config as HaproxyConfig,
      this.log,
    );
    const previous = this.haproxy;
    this.haproxy = svc;
    if (previous) void this.enqueue('haproxy', () => previous.stop().then(() => undefined));
    void this.enqueue('haproxy', async () => {
      const error = await svc.start();
      if (error && this.haproxy === svc) {
        // haproxy exited: the unit is failed
        this.haproxy = undefined;
        const unit = this.host.services.get('haproxy');
        if (unit) Object.assign(unit, { active: false, failed: true });
      }
      return error;
    });
  }

  /** How the last start of a unit ended: undefined when it runs, else the daemon's words. */
  settled(unit: LbUnit): Promise<string | undefined> {
    return this.queue.get(unit) ?? Promise.resolve(undefined);
  }

  stop(unit: LbUnit, how: 'graceful' | 'silent' = 'graceful'): Promise<string | undefined> {
    if (unit === 'keepalived') {
      this.keepalived?.stop(how);
      this.keepalived = undefined;
      return Promise.resolve(undefined);
    }
    const svc = this.haproxy;
    this.haproxy = undefined;
    return this.enqueue('haproxy', async () => {
      await svc?.stop();
      return undefined;
    });
  }

  /** `systemctl reload`: haproxy starts anew on the checked config; keepalived keeps its instances when they did not change. */
  reload(unit: 'haproxy', config: HaproxyConfig): void;
  reload(unit: 'keepalived', config: KeepalivedConfig): void;
  reload(unit: LbUnit, config: HaproxyConfig | KeepalivedConfig): void {
    if (unit === 'keepalived') {
      const same = this.keepalived && JSON.stringify(this.keepalived.config.instances) === JSON.stringify((config as KeepalivedConfig).instances)
        && JSON.stringify(this.keepalived.config.scripts) === JSON.stringify((config as KeepalivedConfig).scripts);
      if (!same) this.start('keepalived', config as KeepalivedConfig);
      return;
    }
    this.start('haproxy', config as HaproxyConfig);
  }

  private vipsChanged(vips: string[], held: boolean): void {
    for (const vip of vips) {
      // Neutron's anti-spoofing: an address the server's ports do not allow never reaches it (allowed_address_pairs)
      if (held && !this.ports.mayUse(vip)) {
        this.log.warn({ host: this.host.address, vip }, 'VIP not in the allowed_address_pairs of the server\'s ports: its traffic is dropped');
        continue;
      }
      if (!held && !this.held.has(vip)) continue;
      const n = (this.held.get(vip) ?? 0) + (held ? 1 : -1);
      if (n > 0) this.held.set(vip, n);
      else this.held.delete(vip);
    }
    this.haproxy?.sync();
  }

  /** A clean shutdown: systemd stops both daemons (keepalived sends its priority 0 advertisement). */
  powerOff(): Promise<void> {
    this.powered = false;
    return this.stopAll('graceful');
  }

  powerOn(): void {
    this.powered = true;
  }

  /** The server is gone: everything stops at once, silently. */
  destroy(): Promise<void> {
    this.powered = false;
    return this.stopAll('silent');
  }

  private async stopAll(how: 'graceful' | 'silent'): Promise<void> {
    const stopped = [this.stop('keepalived', how), this.stop('haproxy', how)];
    for (const unit of ['haproxy', 'keepalived']) {
      const svc = this.host.services.get(unit);
      if (svc) svc.active = false;
    }
    await Promise.all(stopped);
  }

  view() {
    return {
      serverId: this.host.serverId,
      address: this.host.address,
      heldVips: this.heldVips(),
      haproxy: this.haproxy?.view() ?? null,
      keepalived: this.keepalived?.view() ?? null,
    };
  }
}
