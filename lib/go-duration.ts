/** Go's time.ParseDuration for flag values ("40s", "1m30s", "500ms", "8760h"); undefined when it is not one. */
const UNITS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

export function parseDuration(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const t = text.trim();
  if (t === '0') return 0;
  const parts = [...t.matchAll(/(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== t) return undefined;
  return parts.reduce((ms, p) => ms + Number(p[1]) * UNITS[p[2]], 0);
}

/** How kubeadm prints a duration: "4m0s", "24h0m0s", "1.5s". */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = (ms % 60_000) / 1000;
  const sec = `${Number.isInteger(s) ? s : s.toFixed(3).replace(/0+$/, '')}s`;
  if (h > 0) return `${h}h${m}m${sec}`;
  if (m > 0) return `${m}m${sec}`;
  return sec;
}
