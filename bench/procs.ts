/** Per-process figures from Linux /proc: resident memory and CPU time (of a process with its descendants). */
import fs from 'node:fs';

const CLOCK_TICKS = 100; // USER_HZ on Linux

/** Resident set size in MiB of the process and its live descendants (gunicorn's worker is Keystone's child). */
export function rssMiB(pid: number | 'self'): number {
  let kb = 0;
  for (const p of tree(pid)) {
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${p}/status`, 'utf8'));
      if (m) kb += Number(m[1]);
    } catch {
      /* gone */
    }
  }
  return kb ? Math.round(kb / 102.4) / 10 : NaN;
}

function stat(pid: number | 'self'): string[] {
  const s = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return s.slice(s.lastIndexOf(')') + 2).split(' '); // fields from 3 (state) on
}

/** The process and its live descendants ('self', the bench process, alone: the product's processes are its children). */
export function tree(pid: number | 'self'): (number | 'self')[] {
  if (pid === 'self') return ['self'];
  const root = pid;
  const parentOf = new Map<number, number>();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      parentOf.set(Number(d), Number(stat(Number(d))[1])); // ppid (field 4)
    } catch {
      /* gone */
    }
  }
  const out: number[] = [root];
  for (let i = 0; i < out.length; i++) for (const [p, pp] of parentOf) if (pp === out[i]) out.push(p);
  return out;
}

/**
 * User + system CPU seconds used so far by the process, its live descendants
 * and the children it has reaped (cutime/cstime).
 */
export function cpuSeconds(pid: number | 'self'): number {
  let ticks = 0;
  for (const p of tree(pid)) {
    try {
      const f = stat(p);
      ticks += Number(f[11]) + Number(f[12]) + (p === pid && pid !== 'self' ? Number(f[13]) + Number(f[14]) : 0); // utime, stime (+ cutime, cstime)
    } catch {
      /* gone */
    }
  }
  return ticks / CLOCK_TICKS;
}

/** The pid whose command line contains every one of `parts` (e.g. the dev server on our port). */
export function findPid(parts: string[]): number | undefined {
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const cmd = fs.readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0');
      if (parts.every((p) => cmd.includes(p))) return Number(d);
    } catch {
      /* gone */
    }
  }
  return undefined;
}

/** Starts counting CPU of the named processes (with descendants); the returned function gives seconds used since. */
export function cpuMeter(pids: Record<string, number | 'self'>): () => Record<string, number> {
  const live = Object.entries(pids).filter(([, p]) => p === 'self' || Number.isFinite(p));
  const at = Object.fromEntries(live.map(([k, p]) => [k, cpuSeconds(p)]));
  return () => Object.fromEntries(live.map(([k, p]) => [k, Math.round((cpuSeconds(p) - at[k]) * 100) / 100]));
}

/** RSS in MiB of each named process (with descendants). */
export function rssAll(pids: Record<string, number | 'self'>): Record<string, number> {
  return Object.fromEntries(Object.entries(pids).filter(([, p]) => p === 'self' || Number.isFinite(p)).map(([k, p]) => [k, rssMiB(p)]));
}
