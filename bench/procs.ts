/** Per-process figures from Linux /proc: resident memory and CPU time. */
import fs from 'node:fs';

const CLOCK_TICKS = 100; // USER_HZ on Linux

/** Resident set size in MiB. */
export function rssMiB(pid: number | 'self'): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 102.4) / 10 : NaN;
}

/** User + system CPU seconds the process has used so far. */
export function cpuSeconds(pid: number | 'self'): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // fields from 3 (state) on
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS; // utime (14), stime (15)
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

/** Starts counting CPU of the named processes; the returned function gives seconds used since. */
export function cpuMeter(pids: Record<string, number | 'self'>): () => Record<string, number> {
  const at = Object.fromEntries(Object.entries(pids).map(([k, p]) => [k, cpuSeconds(p)]));
  return () => Object.fromEntries(Object.entries(pids).map(([k, p]) => [k, Math.round((cpuSeconds(p) - at[k]) * 100) / 100]));
}
