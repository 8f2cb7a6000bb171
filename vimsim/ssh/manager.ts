/**
 * The machines behind Nova's servers. Follows every commit touching servers
 * or ports: a server that is up (ACTIVE or VERIFY_RESIZE, not being deleted)
 * answers SSH on each of its loopback (127.0.0.0/8) addresses; one that is
 * rebooting, resizing, stopped, in error or being deleted does not. Its host
 * (filesystem, accounts from user_data, history) lives as long as its disk:
 * a rebuild (new generation) gives a fresh host with a new host key, a
 * deleted server's host is retired and stays readable for a while.
 * Listeners bind synchronously, so once Nova says ACTIVE the server answers.
 */
import type { Logger } from 'pino';
import type { KubeRuntime } from '../kube/runtime';
import { HostLb } from '../lb/host-lb';
import { VrrpRegistry } from '../lb/vrrp';
import { inCidr, isLoopback, parseCidr } from '../network/ip';
import type { PortRecord, ServerRecord } from '../store/records';
import type { Change, Store } from '../store/store';
import { bootConfig, type SshUser } from './credentials';
import { SshEndpoint } from './endpoint';
import { SshFaults } from './faults';
import type { SimHost } from './host/host';
import { bootHost, rebootHost } from './host/boot';
import { hostKeyFingerprint, hostPublicKeyLine } from './hostkey';

export interface SshSettings {
  /** Port every endpoint listens on; 0 disables SSH endpoints. */
  port: number;
  users: SshUser[];
}

const RETIRED_KEPT = 100;
const UP = new Set(['ACTIVE', 'VERIFY_RESIZE']);

export function isUp(s: ServerRecord): boolean {
  return UP.has(s.status) && s.task_state !== 'deleting' && s.pending?.op !== 'delete';
}

export class SshManager {
  readonly faults = new SshFaults();
  /** VRRP between the hosts' keepalived daemons (vimsim/lb): who holds which VIP. */
  readonly vrrp: VrrpRegistry;
  /** Live hosts by server id, with the disk generation they were booted from and whether they are powered on. */
  private readonly hosts = new Map<string, { host: SimHost; generation: number; up: boolean }>();
  /** Listening endpoints by address. */
  private readonly endpoints = new Map<string, SshEndpoint>();
  private readonly retired = new Map<string, SimHost>();
  /** Admin override of the host key lines a server's console prints, by server id or name (a tampered console, for tests; a name also hits servers created later, e.g. by a heal). */
  private readonly consoleKeys = new Map<string, string[]>();
  private closed = false;

  constructor(
    private readonly store: Store,
    readonly settings: SshSettings,
    private readonly log: Logger,
    /** Real Kubernetes control planes behind the hosts' kubelets (vimsim/kube). */
    private readonly kube?: KubeRuntime,
  ) {
    this.vrrp = new VrrpRegistry(log);
  }

  get enabled(): boolean {
    return this.settings.port > 0;
  }

  /** Boots the servers already in the state (restart) and follows every later change. */
  start(): void {
    this.store.onCommit((changes) => this.follow(changes));
    for (const s of this.store.list('servers')) this.reconcile(s.id);
  }

  /** The loopback addresses of a server, in interface order. */
  addressesOf(s: ServerRecord): string[] {
    return s.interfaces.flatMap((i) => this.store.get('ports', i.port_id)?.fixed_ips.map((f) => f.ip_address) ?? []).filter(isLoopback);
  }

  private follow(changes: Change[]): void {
    if (this.closed) return;
    const affected = new Set<string>();
    for (const c of changes) {
      if (c.kind === 'servers') affected.add(c.id);
      if (c.kind === 'ports') {
        for (const p of [c.before, c.after] as ({ device_id: string } | undefined)[]) if (p?.device_id) affected.add(p.device_id);
      }
    }
    // Servers losing addresses first, so an address moving between servers is free when the other binds it.
    const ordered = [...affected].sort((a, b) => this.wanted(a).length - this.wanted(b).length);
    for (const id of ordered) this.reconcile(id);
  }

  private wanted(id: string): string[] {
    const s = this.store.get('servers', id);
    return this.enabled && s && isUp(s) ? this.addressesOf(s) : [];
  }

  private reconcile(id: string): void {
    try {
      const s = this.store.get('servers', id);
      const live = this.hosts.get(id);
      if (live && (!s || live.generation !== s.generation)) {
        this.closeEndpoints(id, []);
        this.retire(live.host, live.generation);
        this.hosts.delete(id);
        // the disk is gone: its control plane stops and its files go; its keepalived falls silent
        this.track(this.kube?.hostGone(live.host));
        this.track(live.host.lb?.destroy());
      }
      if (!s) return;
      const want = this.wanted(id);
      this.closeEndpoints(id, want);
      const entry = this.hosts.get(id);
      if (want.length === 0) {
        if (entry?.up) {
          entry.up = false;
          this.track(this.kube?.hostDown(entry.host));
          // a clean shutdown: haproxy closes its sockets, keepalived hands the VIPs over
          this.track(entry.host.lb?.powerOff());
        }
        return;
      }
      if (entry && !entry.up) {
        // powered on again (start, reboot, resize): the disk is kept, the kernel and the kubelet start afresh
        entry.up = true;
        rebootHost(entry.host);
        this.kube?.hostUp(entry.host);
      }
      const host = entry?.host ?? this.boot(s, want[0]);
      for (const address of want) {
        const current = this.endpoints.get(address);
        if (current?.host === host) continue;
        if (current) this.closeEndpoint(current);
        const ep = new SshEndpoint(address, this.settings.port, host, s.ssh_host_key, this.log);
        this.endpoints.set(address, ep);
        ep.listen();
        this.log.info({ server: id, name: s.name, address, port: this.settings.port }, 'SSH endpoint started');
      }
    } catch (err) {
      // one server's trouble must not keep the others off the network
      this.log.error({ err, server: id }, 'SSH endpoint could not be reconciled');
    }
  }

  /** A fresh disk: the image's files plus what cloud-init makes of user_data. */
  private boot(s: ServerRecord, address: string): SimHost {
    const boot = bootConfig({ userData: s.user_data, adminPass: s.admin_pass }, this.settings.users);
    const host = bootHost(s.id, address, boot.hostname ?? s.name, boot.accounts, {
      takeFault: (h, command) => this.faults.take(h, command),
      // a VIP is the address of the host holding it
      resolve: (addr) => this.hostAt(addr) ?? this.vipHolder(addr),
      log: this.log,
    });
    host.lb = new HostLb(host, this.vrrp, this.log, { segment: () => this.segmentOf(s.id), mayUse: (a) => this.mayUse(s.id, a) });
    this.hosts.set(s.id, { host, generation: s.generation, up: true });
    if (this.kube) {
      host.kube = this.kube.nodeOf(host);
      this.kube.hostUp(host);
    }
    return host;
  }

  private readonly stopping = new Set<Promise<void>>();

  /** Control-plane processes being stopped in the background; close() waits for them. */
  private track(p: Promise<void> | undefined): void {
    if (!p) return;
    const t = p.catch((err: unknown) => this.log.error({ err }, 'control plane could not be stopped')).finally(() => this.stopping.delete(t));
    this.stopping.add(t);
  }

  private closeEndpoints(serverId: string, keep: string[]): void {
    for (const ep of [...this.endpoints.values()]) {
      if (ep.host.serverId === serverId && !keep.includes(ep.address)) this.closeEndpoint(ep);
    }
  }

  private closeEndpoint(ep: SshEndpoint): void {
    ep.close();
    this.endpoints.delete(ep.address);
    this.log.info({ server: ep.host.serverId, address: ep.address }, 'SSH endpoint closed');
  }

  /** Keeps a gone disk's host for inspection, by server id and generation (a rebuild retires one too). */
  private retire(host: SimHost, generation: number): void {
    this.retired.set(`${host.serverId}@${generation}`, host);
    while (this.retired.size > RETIRED_KEPT) this.retired.delete(this.retired.keys().next().value as string);
  }

  private portsOf(serverId: string): PortRecord[] {
    return this.store.list('ports').filter((p) => p.device_id === serverId);
  }

  /** The networks of a server's ports: the L2 segment its VRRP adverts reach. */
  private segmentOf(serverId: string): string {
    return [...new Set(this.portsOf(serverId).map((p) => p.network_id))].sort().join(',');
  }

  /** Port security as Neutron applies it: an address of the port, one of its allowed_address_pairs, or a port without port security. */
  private mayUse(serverId: string, address: string): boolean {
    return this.portsOf(serverId).some((p) => !p.port_security_enabled || p.fixed_ips.some((f) => f.ip_address === address)
      || p.allowed_address_pairs.some((pair) => pair.ip_address === address || (pair.ip_address.includes('/') && inCidr(address, parseCidr(pair.ip_address)!))));
  }

  /** The live host holding a VIP now. */
  vipHolder(address: string): SimHost | undefined {
    // only a holder whose ports may carry the address (port security) is reached through it
    return this.vrrp.holdersOf(address).map((id) => this.hosts.get(id)?.host).find((h) => h?.lb?.heldVips().includes(address));
  }

  /** Load balancing on the machines, for the admin API: the virtual routers and every live host's haproxy/keepalived. */
  lbView() {
    return {
      routers: this.vrrp.view(),
      hosts: [...this.hosts.values()].filter((e) => e.host.lb).map((e) => ({ up: e.up, ...e.host.lb!.view() })),
    };
  }

  /** The live host answering at an address. */
  hostAt(address: string): SimHost | undefined {
    return this.endpoints.get(address)?.host;
  }

  /**
   * A host by server id or address: the live one, else the latest retired one
   * of that server; with a generation, that disk's host (live or retired).
   */
  findHost(idOrAddress: string, generation?: number): SimHost | undefined {
    const live = this.hosts.get(idOrAddress);
    if (generation !== undefined) return live?.generation === generation ? live.host : this.retired.get(`${idOrAddress}@${generation}`);
    if (live) return live.host;
    const atAddress = this.hostAt(idOrAddress);
    if (atAddress) return atAddress;
    const retired = [...this.retired].filter(([key]) => key.startsWith(`${idOrAddress}@`));
    return retired[retired.length - 1]?.[1];
  }

  /** The SSH side of a server, for the admin API. */
  sshView(s: ServerRecord) {
    const addresses = this.addressesOf(s);
    const ep = addresses.map((a) => this.endpoints.get(a)).find((e) => e?.host.serverId === s.id);
    return {
      sshAddress: addresses[0] ?? null,
      ssh: {
        port: this.settings.port,
        listening: ep?.listening ?? false,
        error: ep?.error ?? null,
        hostKeyFingerprint: hostKeyFingerprint(s.ssh_host_key),
      },
    };
  }

  /** What cloud-init prints on the console between the SSH HOST KEY KEYS markers: the real public key unless overridden. */
  consoleHostKeys(s: ServerRecord): string[] {
    return this.consoleKeys.get(s.id) ?? this.consoleKeys.get(s.name) ?? [hostPublicKeyLine(s.ssh_host_key, `root@${this.consoleHostname(s)}`)];
  }

  consoleHostname(s: ServerRecord): string {
    return this.hosts.get(s.id)?.host.hostname ?? s.name;
  }

  /** Replaces (lines) or restores (undefined) the host keys a server's console shows. */
  setConsoleHostKeys(idOrName: string, lines: string[] | undefined): void {
    if (lines) this.consoleKeys.set(idOrName, lines);
    else this.consoleKeys.delete(idOrName);
  }

  close(): void {
    this.closed = true;
    for (const ep of this.endpoints.values()) ep.close();
    this.endpoints.clear();
    // no more elections, then every haproxy socket and keepalived timer goes (closeKube waits for them)
    this.vrrp.close();
    for (const { host } of this.hosts.values()) this.track(host.lb?.destroy());
  }

  /** Stops every control-plane process and waits for the load balancers' sockets to close (after close()). */
  async closeKube(): Promise<void> {
    await Promise.all([...this.stopping]);
    await this.kube?.close();
  }
}
