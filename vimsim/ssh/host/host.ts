/**
 * One simulated host per Nova server: its filesystem, accounts, packages,
 * services and Docker daemon, and the record of every command the product
 * ran there. Everything is in memory: a replaced server gets a fresh host,
 * and a simulator restart starts every host afresh.
 */
import type { Logger } from 'pino';
import { redactCommand, redactText } from '../redact';
import { makeAccount, ROOT, type Account, type AccountSpec } from './accounts';
import { BASE_PACKAGES, BASE_SERVICES, populateImage } from './base-image';
import { DockerEngine } from './docker';
import { MemFs } from './fs';

export interface SshFaultHit {
  exitCode: number;
  stderr: string;
  stdout: string;
  hang: boolean;
}

/** What a host needs from the rest of the simulator. */
export interface HostHooks {
  /** The injected fault for a command about to run here, used up once. */
  takeFault(host: SimHost, command: string): SshFaultHit | undefined;
  /** Another live host by address (for curl/docker login between servers). */
  resolve(address: string): SimHost | undefined;
  log: Logger;
}

export interface CommandRecord {
  command: string;
  user: string;
  /** null while running, or when the client gave up on it (hung). */
  exitCode: number | null;
  at: string;
  durationMs?: number;
}

/** One program started on the host (after sudo / sh -c unwrapping), like an audit log entry. */
export interface ProgramRecord {
  argv: string;
  user: string;
  exitCode: number | null;
  at: string;
}

export interface PackageRecord {
  name: string;
  version: string;
  base: boolean;
  installedAt: string;
}

export interface ServiceState {
  active: boolean;
  enabled: boolean;
  failed: boolean;
}

const MAX_COMMANDS = 2000;

export class SimHost {
  readonly fs = new MemFs();
  readonly accounts = new Map<string, Account>();
  readonly packages = new Map<string, PackageRecord>();
  readonly services = new Map<string, ServiceState>();
  readonly docker = new DockerEngine();
  /** Loaded kernel modules (sysctls and swap are files under /proc). */
  readonly kernel = { modules: new Set<string>() };
  /** Secrets the host learnt besides passwords (bootstrap tokens of kubeadm configs): masked in the records too. */
  readonly extraSecrets = new Set<string>();
  /** apt's package lists as of the last `apt-get update`: the repositories it read. */
  aptLists: string[] = [];
  /** Packages `apt-mark hold` holds. */
  readonly held = new Set<string>();
  readonly commands: CommandRecord[] = [];
  readonly programs: ProgramRecord[] = [];
  /** Every SSH authentication request (method and outcome, never the user or secret): shows whether a client got as far as sending a password. */
  readonly authAttempts: { method: string; accepted: boolean; at: string }[] = [];
  /** Unit files and drop-ins as systemd loaded them (at boot, then at each daemon-reload). */
  loadedUnits = new Map<string, string>();
  readonly bootedAt = new Date().toISOString();

  constructor(
    readonly serverId: string,
    readonly address: string,
    public hostname: string,
    accounts: AccountSpec[],
    readonly hooks: HostHooks,
  ) {
    this.accounts.set('root', { ...ROOT, groups: new Set(ROOT.groups) });
    accounts.forEach((spec, i) => this.accounts.set(spec.name, makeAccount(spec, 1000 + i)));
    populateImage(this.fs, hostname, address, [...this.accounts.values()]);
    const now = this.bootedAt;
    for (const [name, version] of Object.entries(BASE_PACKAGES)) this.packages.set(name, { name, version, base: true, installedAt: now });
    for (const name of BASE_SERVICES) this.services.set(name, { active: true, enabled: true, failed: false });
  }


  /** Records an exec request as it starts (redacted; its exit code set when it ends: ssh/shell/shell.ts execOnHost). */
  recordCommand(command: string, user: string): CommandRecord {
    const record: CommandRecord = { command: redactCommand(command, this), user, exitCode: null, at: new Date().toISOString() };
    this.commands.push(record);
    if (this.commands.length > MAX_COMMANDS) this.commands.splice(0, this.commands.length - MAX_COMMANDS);
    return record;
  }

  /** Records a program as it starts (exit code set when it ends); echo/printf arguments are left out (they carry passwords into pipes). */
  recordProgram(argv: string[], user: string): ProgramRecord {
    const [name] = argv;
    const shown = name === 'echo' || name === 'printf' ? `${name} …` : argv.join(' ');
    const record: ProgramRecord = { argv: redactCommand(shown, this), user, exitCode: null, at: new Date().toISOString() };
    this.programs.push(record);
    if (this.programs.length > MAX_COMMANDS * 4) this.programs.splice(0, this.programs.length - MAX_COMMANDS * 4);
    return record;
  }

  /** Passwords known on this host, so the recorder can blank them out. */
  secrets(): string[] {
    return [...[...this.accounts.values()].map((a) => a.password).filter((p): p is string => Boolean(p)), ...this.extraSecrets];
  }

  isInstalled(pkg: string): boolean {
    return this.packages.has(pkg);
  }

  /** The admin view: what ran and what was written, never passwords or file contents. */
  view() {
    return {
      serverId: this.serverId,
      address: this.address,
      hostname: this.hostname,
      bootedAt: this.bootedAt,
      // No user names either: a default password often equals the user name.
      authAttempts: this.authAttempts.slice(-MAX_COMMANDS),
      commands: this.commands.map(({ command, exitCode, at, durationMs }) => ({ command, exitCode, at, durationMs })),
      // Every program started, with `sudo ... sh -c '...'` wrappers seen through; root or not.
      programs: this.programs.map(({ argv, user, exitCode, at }) => ({ argv, root: user === 'root', exitCode, at })),
      files: this.fs.userFiles().map(({ owner: _owner, ...f }) => f),
      packages: [...this.packages.values()].filter((p) => !p.base).map(({ name, version, installedAt }) => ({ name, version, installedAt })),
      services: Object.fromEntries([...this.services].map(([name, s]) => [name, s.failed ? 'failed' : s.active ? 'active' : 'inactive'])),
      containers: this.docker.containers.map((c) => ({
        id: c.id,
        name: c.name,
        image: c.image,
        state: c.state,
        ports: c.ports.map((p) => `${p.hostPort}:${p.containerPort}/${p.proto}`),
        volumes: c.volumes,
        restart: c.restart,
        created: c.created,
      })),
      images: this.docker.images.map((i) => ({ id: `sha256:${i.id}`, repoTags: i.repoTags, size: i.size, source: i.source })),
      docker: {
        insecureRegistries: this.docker.insecureRegistries,
        proxy: Object.fromEntries(Object.entries(this.docker.proxyEnv).map(([k, v]) => [k, redactText(v)])),
        loggedIn: [...this.docker.loggedIn],
      },
    };
  }
}

export type HostView = ReturnType<SimHost['view']>;
