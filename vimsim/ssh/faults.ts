/**
 * Injected SSH command failures (admin API, in memory only). A fault hits
 * the next `times` commands whose text contains `match` (or matches it when
 * written /regex/flags), on one server (physical id or address) or any.
 * A command is every program started, so `sudo docker run ...` can be hit by
 * "docker run" either as the sudo line or as the program sudo starts.
 */
import { randomUUID } from 'node:crypto';
import type { SimHost, SshFaultHit } from './host/host';

export interface SshFaultSpec {
  server?: string;
  match: string;
  exitCode?: number;
  stderr?: string;
  stdout?: string;
  hang?: boolean;
  times?: number;
}

export interface SshFault extends Required<Pick<SshFaultSpec, 'match' | 'exitCode' | 'hang' | 'times'>> {
  id: string;
  server?: string;
  stderr?: string;
  stdout?: string;
  used: number;
  createdAt: string;
}

function matcher(match: string): (command: string) => boolean {
  const re = /^\/(.+)\/([a-z]*)$/s.exec(match);
  if (re) {
    const regex = new RegExp(re[1], re[2]);
    return (command) => regex.test(command);
  }
  return (command) => command.includes(match);
}

export class SshFaults {
  private faults: (SshFault & { test: (command: string) => boolean })[] = [];

  /** Throws (SyntaxError) for an invalid /regex/. */
  add(spec: SshFaultSpec): SshFault {
    const fault = {
      id: randomUUID(),
      server: spec.server,
      match: spec.match,
      exitCode: spec.exitCode ?? 1,
      stderr: spec.stderr,
      stdout: spec.stdout,
      hang: spec.hang ?? false,
      times: spec.times ?? 1,
      used: 0,
      createdAt: new Date().toISOString(),
    };
    this.faults.push({ ...fault, test: matcher(spec.match) });
    return fault;
  }

  list(): (SshFault & { remaining: number })[] {
    return this.faults.map(({ test: _test, ...f }) => ({ ...f, remaining: f.times - f.used }));
  }

  /** Removes one fault (or all); returns how many went. */
  remove(id?: string): number {
    const before = this.faults.length;
    this.faults = id === undefined ? [] : this.faults.filter((f) => f.id !== id);
    return before - this.faults.length;
  }

  take(host: SimHost, command: string): SshFaultHit | undefined {
    const fault = this.faults.find(
      (f) => f.used < f.times && (f.server === undefined || f.server === host.serverId || f.server === host.address) && f.test(command),
    );
    if (!fault) return undefined;
    fault.used++;
    return { exitCode: fault.exitCode, stderr: fault.stderr ?? '', stdout: fault.stdout ?? '', hang: fault.hang };
  }
}
