/**
 * The caps of the Heat and cluster-engine poll back-offs are settings: the
 * defaults keep the production behaviour (15 s, 10 s), the tests' harness
 * lowers them (test/harness/setup.ts) through the same code path.
 */
import { loadConfig } from '../../common/config';
import { HEAT_POLL_MAX_MS_DEFAULT } from '../../workflow-steps/stack';

const saved = { ...process.env };
afterEach(() => { process.env = { ...saved }; });

test('defaults: Heat polls back off to 15 s, the cluster engine checks to 10 s', () => {
  delete process.env.HEAT_POLL_MAX_MS;
  delete process.env.CLUSTER_POLL_MAX_MS;
  const cfg = loadConfig();
  expect(cfg.heatPollMaxMs).toBe(15_000);
  expect(cfg.heatPollMaxMs).toBe(HEAT_POLL_MAX_MS_DEFAULT);
  expect(cfg.cluster.pollMaxMs).toBe(10_000);
});

test('HEAT_POLL_MAX_MS and CLUSTER_POLL_MAX_MS set the caps', () => {
  process.env.HEAT_POLL_MAX_MS = '1000';
  process.env.CLUSTER_POLL_MAX_MS = '2000';
  const cfg = loadConfig();
  expect(cfg.heatPollMaxMs).toBe(1000);
  expect(cfg.cluster.pollMaxMs).toBe(2000);
});
