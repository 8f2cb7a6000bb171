/** The operations kit in monitoring/ and the metric names its queries use. */
import fs from 'node:fs';
import path from 'node:path';

export const KIT = path.resolve(__dirname, '../../monitoring');
export const RULES_DIR = path.join(KIT, 'prometheus');
export const DASHBOARD = path.join(KIT, 'grafana', 'nfv-orchestrator.json');

/** The metric names the dashboard's and the alerts' expressions name (histogram series by their family). */
export function kitMetricNames(): string[] {
  const text = fs.readFileSync(DASHBOARD, 'utf8') + fs.readFileSync(path.join(RULES_DIR, 'alerts.yml'), 'utf8');
  return [...new Set([...text.matchAll(/\b((?:nfv|temporal)_[a-z0-9_]+)/g)].map((m) => m[1].replace(/_(bucket|count|sum)$/, '')))];
}
