/**
 * Keeps one SSH endpoint per reachable server. After every state save it
 * compares the servers in the state with the running endpoints: a new server
 * gets a fresh host and a listener on its pool address, a deleted or replaced
 * one (new physical id) loses its listener and its host is retired (kept a
 * while for inspection). Listeners bind synchronously, so by the time Heat
 * reports CREATE_COMPLETE the server answers SSH.
 */
import type { Logger } from 'pino';
import type { StateStore } from '../state/store';
import { bootConfig, type SshUser } from './credentials';
import { SshEndpoint } from './endpoint';
import { SshFaults } from './faults';
import { SimHost } from './host/host';
import { generateHostKey, hostKeyFingerprint, isUsableHostKey } from './hostkey';
import { listServers, type SimServer } from './servers';

export interface SshSettings {
  /** Port every endpoint listens on; 0 disables SSH endpoints. */
  port: number;
  sshCidr: string;
  users: SshUser[];
}

const RETIRED_KEPT = 100;

export class SshManager {
  readonly faults = new SshFaults();
  private readonly endpoints = new Map<string, SshEndpoint>();
  private readonly retired = new Map<string, SimHost>();
  private reconciling = false;
  private closed = false;

  constructor(
    private readonly store: StateStore,
    readonly settings: SshSettings,
    private readonly log: Logger,
  ) {}

  get enabled(): boolean {
    return this.settings.port > 0;
  }

  /** Starts endpoints for the servers already in the state (restart) and follows every later change. */
  start(): void {
    this.store.onSave(() => this.reconcile());
    this.reconcile();
  }

  reconcile(): void {
    if (this.closed || this.reconciling || !this.enabled) return;
    this.reconciling = true;
    try {
      const wanted = new Map(
        listServers(this.store.data, this.settings.sshCidr)
          .filter((s) => s.reachable && s.sshAddress)
          .map((s) => [s.id, s]),
      );
      for (const [id, ep] of this.endpoints) {
        if (wanted.get(id)?.sshAddress === ep.address) continue;
        ep.close();
        this.endpoints.delete(id);
        this.retire(ep.host);
        this.log.info({ server: id, address: ep.address }, 'SSH endpoint closed');
      }
      const keysAdded: string[] = []; // stacks whose servers got a host key now
      for (const [id, server] of wanted) {
        if (this.endpoints.has(id)) continue;
        try { // one server's trouble must not keep the others off the network
          if (this.ensureHostKey(server)) keysAdded.push(server.stackId);
          this.open(server);
        } catch (err) {
          this.log.error({ err, server: id }, 'SSH endpoint could not be opened');
        }
      }
      if (keysAdded.length > 0) this.store.save(keysAdded);
    } catch (err) {
      this.log.error({ err }, 'SSH reconcile failed');
    } finally {
      this.reconciling = false;
    }
  }

  /** Servers created before host keys existed get one now (persisted by the caller's save). */
  private ensureHostKey(server: SimServer): boolean {
    if (isUsableHostKey(server.resource.data.sshHostKey)) return false;
    server.resource.data.sshHostKey = generateHostKey();
    return true;
  }

  private open(server: SimServer): void {
    const address = server.sshAddress!;
    const boot = bootConfig(server.resource.props, this.settings.users);
    const host = new SimHost(server.id, address, boot.hostname ?? server.name, boot.accounts, {
      takeFault: (h, command) => this.faults.take(h, command),
      resolve: (addr) => this.hostAt(addr),
      log: this.log,
    });
    const ep = new SshEndpoint(address, this.settings.port, host, server.resource.data.sshHostKey as string, this.log);
    this.endpoints.set(server.id, ep);
    ep.listen();
    this.log.info({ server: server.id, name: server.name, address, port: this.settings.port }, 'SSH endpoint started');
  }

  private retire(host: SimHost): void {
    this.retired.set(host.serverId, host);
    while (this.retired.size > RETIRED_KEPT) this.retired.delete(this.retired.keys().next().value as string);
  }

  /** The live host answering at an address. */
  hostAt(address: string): SimHost | undefined {
    for (const ep of this.endpoints.values()) if (ep.address === address) return ep.host;
    return undefined;
  }

  /** A host by server id or address: live first, then recently deleted/replaced ones. */
  findHost(idOrAddress: string): SimHost | undefined {
    return this.endpoints.get(idOrAddress)?.host ?? this.hostAt(idOrAddress) ?? this.retired.get(idOrAddress);
  }

  /** Every server of the live stacks with its SSH endpoint state (admin view). */
  servers() {
    return listServers(this.store.data, this.settings.sshCidr).map((s) => {
      const ep = this.endpoints.get(s.id);
      const key = s.resource.data.sshHostKey;
      return {
        id: s.id,
        name: s.name,
        stackId: s.stackId,
        stackName: s.stackName,
        rootStackId: s.rootStackId,
        resourceName: s.resourceName,
        status: s.status,
        addresses: s.addresses,
        sshAddress: s.sshAddress,
        ssh: {
          port: this.settings.port,
          listening: ep?.listening ?? false,
          error: ep?.error ?? null,
          hostKeyFingerprint: typeof key === 'string' ? hostKeyFingerprint(key) : null,
        },
      };
    });
  }

  close(): void {
    this.closed = true;
    for (const ep of this.endpoints.values()) ep.close();
    this.endpoints.clear();
  }
}
