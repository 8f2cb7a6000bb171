/**
 * The keepalived daemon of one simulated host: its vrrp_scripts run on their
 * interval, its vrrp_instances are members of the simulator's VRRP registry
 * (vrrp.ts) while the unit runs and the host is up, and the VIPs they win are
 * handed to the host (so haproxy listens there).
 *
 * Scripts are not executed: the usual liveness checks are understood —
 * `killall -0 NAME`, `pidof NAME`, `pgrep [-x] NAME`, `systemctl is-active
 * NAME` — as "the unit NAME (dockerd: docker) is active on this host"; any
 * other script counts as succeeding. Results as keepalived 2.0 counts them:
 * the first run decides (one success is enough, one failure is FAULT), then
 * `fall` consecutive failures go down and `rise` successes come back. A
 * tracked script that is down puts the instance in FAULT (it lets go of the
 * VIPs with a priority 0 advertisement); script weights are not simulated.
 */
import type { Logger } from 'pino';
import type { KeepalivedConfig, VrrpScriptConfig } from './keepalived-config';
import type { VrrpMembership, VrrpRegistry } from './vrrp';

/** What keepalived needs from its host. */
export interface KeepalivedHost {
  serverId: string;
  address: string;
  /** The networks its adverts reach (vrrp.ts). */
  segment(): string;
  /** Whether a systemd unit is active there (what a liveness script really asks). */
  unitActive(unit: string): boolean;
  /** The VIPs of an instance were won (true) or lost (false). */
  vipsChanged(vips: string[], held: boolean): void;
}

interface ScriptState {
  cfg: VrrpScriptConfig;
  /** keepalived's counter: 0..rise+fall-1, up while >= rise. */
  result: number;
  timer?: NodeJS.Timeout;
}

const PROGRAM_UNITS: Record<string, string> = { dockerd: 'docker' };

/** The unit a liveness script asks about, or undefined for a script this cannot read. */
export function scriptTarget(script: string): string | undefined {
  const w = script.trim().split(/\s+/);
  const prog = (w[0] ?? '').split('/').pop();
  const last = w[w.length - 1];
  if (prog === 'killall' && w[1] === '-0' && w.length === 3) return last;
  if (prog === 'pidof' && w.length >= 2) return last;
  if (prog === 'pgrep' && w.length >= 2 && !last.startsWith('-')) return last;
  if (prog === 'systemctl' && w[1] === 'is-active' && !last.startsWith('-')) return last.replace(/\.service$/, '');
  return undefined;
}

export class KeepalivedService {
  private readonly scripts = new Map<string, ScriptState>();
  private readonly members: { instance: string; membership: VrrpMembership }[] = [];
  private stopped = false;
  readonly startedAt = new Date().toISOString();

  constructor(
    private readonly host: KeepalivedHost,
    readonly config: KeepalivedConfig,
    private readonly vrrp: VrrpRegistry,
    private readonly log: Logger,
  ) {}

  start(): void {
    for (const w of this.config.warnings) this.log.info({ host: this.host.address }, `Keepalived_vrrp: ${w}`);
    for (const cfg of this.config.scripts) {
      const s: ScriptState = { cfg, result: cfg.rise - 1 };
      this.scripts.set(cfg.name, s);
      this.run(s, false);
    }
    for (const inst of this.config.instances) {
      const membership = this.vrrp.join({
        hostId: this.host.serverId,
        segment: this.host.segment(),
        address: this.host.address,
        instance: inst.name,
        virtualRouterId: inst.virtualRouterId,
        vips: inst.vips,
        priority: inst.priority,
        advertIntMs: inst.advertIntMs,
        healthy: () => inst.trackScripts.every((name) => this.up(this.scripts.get(name))),
        onHolding: (held, vips) => {
          this.log.info({ host: this.host.address, vips }, `Keepalived_vrrp: (${inst.name}) Entering ${held ? 'MASTER' : 'BACKUP'} STATE`);
          this.host.vipsChanged(vips, held);
        },
      });
      this.members.push({ instance: inst.name, membership });
    }
  }

  private up(s: ScriptState | undefined): boolean {
    return !s || s.result >= s.cfg.rise;
  }

  /** One run of a script (keepalived's vrrp_script_child_thread result counting), then the next in `interval`. */
  private run(s: ScriptState, tell: boolean): void {
    if (this.stopped) return;
    const before = this.up(s);
    const target = scriptTarget(s.cfg.script);
    const ok = target === undefined || this.host.unitActive(PROGRAM_UNITS[target] ?? target);
    const { rise, fall } = s.cfg;
    if (ok) {
      if (s.result < rise - 1) s.result++;
      else s.result = rise + fall - 1;
    } else if (s.result > rise) {
      s.result--;
    } else {
      s.result = 0;
    }
    const after = this.up(s);
    if (before !== after || !tell) this.log.info({ host: this.host.address }, `Keepalived_vrrp: Script \`${s.cfg.name}\` now returning ${ok ? 0 : 1}${after ? '' : ' (failed)'}`);
    if (tell && before !== after) for (const m of this.members) m.membership.healthChanged();
    s.timer = setTimeout(() => this.run(s, true), s.cfg.intervalMs);
    s.timer.unref();
  }

  /** Stops: `graceful` as systemctl stop or a clean shutdown (priority 0 advertisement), `silent` as a power cut. */
  stop(how: 'graceful' | 'silent'): void {
    if (this.stopped) return;
    this.stopped = true;
    for (const s of this.scripts.values()) clearTimeout(s.timer);
    for (const m of this.members.splice(0)) m.membership.leave(how);
  }

  view() {
    return {
      startedAt: this.startedAt,
      scripts: [...this.scripts.values()].map((s) => ({ name: s.cfg.name, script: s.cfg.script, up: this.up(s), result: s.result })),
      instances: this.config.instances.map((inst) => ({
        name: inst.name,
        virtualRouterId: inst.virtualRouterId,
        priority: inst.priority,
        vips: inst.vips,
        state: this.members.find((m) => m.instance === inst.name)?.membership.state ?? 'stopped',
      })),
      warnings: this.config.warnings,
    };
  }
}
