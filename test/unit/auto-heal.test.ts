/** Auto-healing's rule (ops/auto-heal-share.ts): one nodegroup per operation, at most 40 % of it, at least one node. */
import { autoHealReason, healable, mastersLeftReason, nodesToReplace } from '../../ops/auto-heal-share';
import { loadConfig } from '../../common/config';

const node = (name: string, nodegroup: string) => ({ name, nodegroup, address: `127.0.0.${name.length}` });

test('one nodegroup at a time, 40 % of its size at most, never none', () => {
  const sizes: Record<string, number> = { workers: 5, big: 10, one: 1 };
  const size = (g: string) => sizes[g];
  const overdue = [node('w1', 'workers'), node('b1', 'big'), node('w2', 'workers'), node('w3', 'workers')];
  expect(nodesToReplace(overdue, size).map((n) => n.name)).toEqual(['w1', 'w2']); // 40 % of 5
  expect(nodesToReplace([node('b1', 'big'), node('b2', 'big'), node('b3', 'big'), node('b4', 'big'), node('b5', 'big')], size)).toHaveLength(4);
  expect(nodesToReplace([node('o1', 'one')], size).map((n) => n.name)).toEqual(['o1']); // a nodegroup of one still heals
  expect(nodesToReplace([], size)).toEqual([]);
});

test('the reason names the nodes, their nodegroup and the delay', () => {
  expect(autoHealReason([node('w1', 'workers'), node('w22', 'workers')], 300)).toBe('auto-healing: replacing w1 (127.0.0.2), w22 (127.0.0.3) of workers, NotReady for more than 300 s');
});

test('masters are replaced only in a control plane of several that keeps etcd\'s quorum', () => {
  const m = (name: string) => ({ name, role: 'master' });
  const w = { name: 'w1', role: 'worker' };
  expect(healable([m('m1'), w], 3).map((n) => n.name)).toEqual(['m1', 'w1']); // 2 of 3 live
  expect(healable([m('m1'), m('m2')], 5).map((n) => n.name)).toEqual(['m1', 'm2']); // 3 of 5 live
  expect(healable([m('m1'), m('m2'), w], 3).map((n) => n.name)).toEqual(['w1']); // 1 of 3: no quorum
  expect(healable([m('m1'), m('m2'), m('m3')], 5)).toEqual([]);
  expect(healable([m('m1'), w], 1).map((n) => n.name)).toEqual(['w1']); // a lone master
  expect(mastersLeftReason(3, 2)).toBe('2 of 3 masters are NotReady: etcd has lost its quorum and a replacement could not join; left to the operator');
  expect(mastersLeftReason(1, 1)).toMatch(/lone master/);
});

test('a node is replaced after 5 minutes NotReady unless CLUSTER_AUTO_HEAL_AFTER_S says otherwise (Cluster API MachineHealthCheck\'s default)', () => {
  const saved = process.env.CLUSTER_AUTO_HEAL_AFTER_S;
  try {
    delete process.env.CLUSTER_AUTO_HEAL_AFTER_S;
    expect(loadConfig().cluster.autoHealAfterS).toBe(300);
    process.env.CLUSTER_AUTO_HEAL_AFTER_S = '10';
    expect(loadConfig().cluster.autoHealAfterS).toBe(10);
  } finally {
    if (saved === undefined) delete process.env.CLUSTER_AUTO_HEAL_AFTER_S;
    else process.env.CLUSTER_AUTO_HEAL_AFTER_S = saved;
  }
});
