/**
 * The operations kit in monitoring/ loads in its tools' own validators:
 * promtool checks the alert rules and runs their unit tests (each alert
 * fires on the series that should raise it, not before); the dashboard
 * passes the JSON schema of Grafana's dashboard model. And every metric
 * either names is one the product exports (the SDK's temporal_* names are
 * checked against a live worker in test/e2e/metrics.test.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { metricsRoute } from '../../api/metrics';
import { openStore } from '../../store';
import { metricsRegistry } from '../../common/metrics';
import { validateGrafanaDashboard } from '../support/grafana-dashboard-schema';
import { DASHBOARD, kitMetricNames, RULES_DIR as RULES } from '../support/monitoring-kit';
import { promtool } from '../support/promtool';

test('promtool checks the alert rules', () => {
  const r = promtool(['check', 'rules', 'alerts.yml'], RULES);
  expect([r.status, r.out]).toEqual([0, expect.stringMatching(/SUCCESS: 5 rules found/)]);
});

test('promtool runs the rules\' tests: each alert fires on its series, and not before', () => {
  const r = promtool(['test', 'rules', 'alerts.test.yml'], RULES);
  if (r.status !== 0) throw new Error(r.out);
  expect(r.out).toMatch(/SUCCESS/);
});

test('promtool refuses a rule file with a broken expression (the check is real)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rules-'));
  try {
    const broken = fs.readFileSync(path.join(RULES, 'alerts.yml'), 'utf8').replace('max(nfv_lcm_failed_temp_oldest_age_seconds) > 3600', 'max(nfv_lcm_failed_temp_oldest_age_seconds > 3600');
    fs.writeFileSync(path.join(dir, 'alerts.yml'), broken);
    const r = promtool(['check', 'rules', 'alerts.yml'], dir);
    expect(r.status).not.toBe(0);
    expect(r.out).toMatch(/unclosed left parenthesis|parse error/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the dashboard passes the JSON schema of Grafana\'s dashboard model, and a broken one does not', () => {
  const dashboard = JSON.parse(fs.readFileSync(DASHBOARD, 'utf8'));
  expect(validateGrafanaDashboard(dashboard)).toEqual([]);
  expect(validateGrafanaDashboard({ ...dashboard, graphTooltip: 'shared' })).toEqual(expect.arrayContaining(['/graphTooltip must be equal to one of the allowed values']));
  expect(validateGrafanaDashboard({ ...dashboard, panels: [{ ...dashboard.panels[1], gridPos: { x: 0 } }] })).toEqual(expect.arrayContaining(["/panels/0/gridPos must have required property 'w'"]));
  expect(validateGrafanaDashboard({ ...dashboard, panel: [] })).toEqual(['/ must NOT have additional properties: panel']);
});

test('every nfv_ metric the dashboard and the alerts name is one the product exports', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-'));
  const store = await openStore({ dataDir: dir });
  try {
    metricsRoute(store); // registers the store gauges
    const exported = new Set((await metricsRegistry.getMetricsAsJSON()).map((m) => m.name));
    const named = kitMetricNames().filter((n) => n.startsWith('nfv_'));
    expect(named.length).toBeGreaterThanOrEqual(10);
    expect(named.filter((n) => !exported.has(n))).toEqual([]);
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
