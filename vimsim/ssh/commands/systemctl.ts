/** systemctl and the `service` wrapper over the simulated units (host/services.ts). */
import { activeState, changedOnDisk, daemonReload, reloadService, settleService, startService, stopService, unitName } from '../host/services';
import { isLbUnit } from '../../lb/units';
import { getopt, has, isRoot, type CommandContext, type CommandTable } from './types';

const AUTH_REQUIRED = 'Interactive authentication required.';

function statusText(ctx: CommandContext, unit: string): string {
  const svc = ctx.sh.host.services.get(unit)!;
  const active = activeState(ctx.sh.host, unit);
  const state = active === 'failed' ? 'failed (Result: exit-code)' : active === 'activating' ? 'activating (auto-restart) (Result: exit-code)' : active === 'active' ? 'active (running)' : 'inactive (dead)';
  return [
    `● ${unit}.service`,
    `     Loaded: loaded (/lib/systemd/system/${unit}.service; ${svc.enabled ? 'enabled' : 'disabled'}; vendor preset: enabled)`,
    `     Active: ${state} since ${ctx.sh.host.bootedAt}`,
    '',
  ].join('\n');
}

async function systemctl(ctx: CommandContext): Promise<number> {
  const p = getopt(ctx.args, ['p', 'property', 'type', 'state']);
  const [verb, ...rest] = p.operands;
  const units = rest.map(unitName);
  const { host } = ctx.sh;
  const out = (text: string) => ctx.io.stdout.write(text);
  const err = (text: string) => ctx.io.stderr.write(text);
  const missing = units.find((u) => !host.services.has(u));
  switch (verb) {
    case 'daemon-reload':
      if (!isRoot(ctx)) {
        err(`Failed to reload daemon: ${AUTH_REQUIRED}\n`);
        return 1;
      }
      daemonReload(host);
      return 0;
    case 'is-active': {
      let status = 0;
      for (const u of units) {
        const state = activeState(host, u);
        if (!has(p, 'q', 'quiet')) out(`${state}\n`);
        if (state !== 'active') status = 3;
      }
      return status;
    }
    case 'is-enabled': {
      let status = 0;
      for (const u of units) {
        const svc = host.services.get(u);
        if (!svc) {
          err(`Failed to get unit file state for ${u}.service: No such file or directory\n`);
          status = 1;
          continue;
        }
        if (!has(p, 'q', 'quiet')) out(`${svc.enabled ? 'enabled' : 'disabled'}\n`);
        if (!svc.enabled) status = 1;
      }
      return status;
    }
    case 'status': {
      if (missing) {
        err(`Unit ${missing}.service could not be found.\n`);
        return 4;
      }
      units.forEach((u) => out(statusText(ctx, u)));
      return units.every((u) => activeState(host, u) === 'active') ? 0 : 3;
    }
    case 'show':
      for (const u of units) {
        const svc = host.services.get(u);
        const state = activeState(host, u);
        out(`ActiveState=${state}\nSubState=${state === 'active' ? 'running' : state === 'activating' ? 'auto-restart' : 'dead'}\nUnitFileState=${svc?.enabled ? 'enabled' : 'disabled'}\n`);
      }
      return 0;
    case 'start': case 'stop': case 'restart': case 'reload': case 'try-restart': case 'reload-or-restart':
    case 'enable': case 'disable': case 'mask': case 'unmask': {
      if (units.length === 0) {
        err(`Too few arguments.\n`);
        return 1;
      }
      if (!isRoot(ctx)) {
        err(`Failed to ${verb} ${units.map((u) => `${u}.service`).join(' ')}: ${AUTH_REQUIRED}\nSee system logs and 'systemctl status ${units[0]}.service' for details.\n`);
        return 1;
      }
      if (missing) {
        err(verb === 'enable' || verb === 'disable'
          ? `Failed to ${verb} unit: Unit file ${missing}.service does not exist.\n`
          : `Failed to ${verb} ${missing}.service: Unit ${missing}.service not found.\n`);
        return verb === 'enable' || verb === 'disable' ? 1 : 5;
      }
      for (const u of units) {
        const svc = host.services.get(u)!;
        if (verb === 'enable' || verb === 'disable') {
          svc.enabled = verb === 'enable';
          if (has(p, 'now')) verb === 'enable' ? startService(host, u) : stopService(host, u);
          continue;
        }
        if (verb === 'mask' || verb === 'unmask') continue;
        if (changedOnDisk(host, u)) {
          err(`Warning: The unit file, source configuration file or drop-ins of ${u}.service changed on disk. Run 'systemctl daemon-reload' to reload units.\n`);
        }
        if (verb === 'stop') {
          stopService(host, u);
          continue;
        }
        if (verb === 'start' && svc.active) continue;
        if (verb === 'try-restart' && !svc.active) continue;
        // haproxy and keepalived reload for real: a refused config fails the job and the daemon keeps the old one
        if (isLbUnit(u) && (verb === 'reload' || verb === 'reload-or-restart') && svc.active) {
          const failure = reloadService(host, u) ?? (await settleService(host, u));
          if (failure) {
            err(`${failure}\n`);
            return 1;
          }
          continue;
        }
        if (isLbUnit(u) && verb === 'reload') {
          err(`${u}.service is not active, cannot reload.\n`);
          return 1;
        }
        stopService(host, u);
        // haproxy's sockets are bound (or refused) before the job ends
        const failure = startService(host, u) ?? (await settleService(host, u));
        if (failure) {
          err(`${failure}\n`);
          return 1;
        }
      }
      return 0;
    }
    case 'list-units':
      for (const [name, svc] of host.services) out(`${name}.service loaded ${svc.active ? 'active running' : 'inactive dead'}\n`);
      return 0;
    default:
      err(`Unknown command verb ${verb ?? ''}.\n`);
      return 1;
  }
}

export const SYSTEMCTL_COMMANDS: CommandTable = {
  systemctl: { run: systemctl },
  // `service docker restart` is `systemctl restart docker`.
  service: {
    run(ctx) {
      const [unit, action] = ctx.args;
      if (!unit || !action) {
        ctx.io.stderr.write('Usage: service < option > | --status-all | [ service_name [ command | --full-restart ] ]\n');
        return 1;
      }
      return systemctl({ ...ctx, name: 'systemctl', args: [action, unit] });
    },
  },
};
