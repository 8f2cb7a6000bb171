/**
 * Seed 000 part 2 (test/e2e/k8s-cluster-vnf.test.ts) when things go wrong on
 * the shared cloud: a fault at each install step of every node, then the
 * worker killed with -9 mid-install.
 */
import fs from 'node:fs';
import path from 'node:path';
import { clusterOfVnf, clusterNodes } from '../../store/repos/clusters';
import { connectSsh } from '../../ssh';
import { readState } from '../harness/state';
import { addSshFault, call, clearFaults, eventually, opIdFrom, waitOpState } from '../support/api';
import { adminConf, instance, newInstance, onboardRegistryAndPackage, params, readyNodes, registry, serverAddress, task, vnfcsOf, work } from '../support/k8s-cluster-vnf';
import { withProductStore } from '../support/product-store';
import { killWorker, restartWorker } from '../support/worker-control';

afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
afterEach(async () => { await clearFaults(); });
beforeAll(onboardRegistryAndPackage, 600_000);

test('a fault at each install step parks the instantiate in FAILED_TEMP naming the step and the node; retries complete it, /etc/hosts gets its line once', async () => {
  const faults = [
    ['prepare', 'modprobe overlay'], ['container runtime', 'apt-get install -y containerd'], ['private registries', 'curl -sS -o /dev/null -w'],
    ['kubernetes packages', 'apt-get install -y --allow-change-held-packages kubelet'], ['kubeadm init', 'kubeadm init --config'], ['kubeadm join', 'kubeadm join --config'],
  ];
  // a command that fails is not retried on its own; a registry that does not answer may be starting, so its check is tried 3 times
  for (const [step, match] of faults) await addSshFault({ match, exitCode: 1, stderr: `injected failure of ${match}`, times: step === 'private registries' ? 3 : 1 });
  const id = await newInstance();
  const r = await call('POST', `/vnflcm/v1/vnf_instances/${id}/instantiate`, params());
  expect(r.status).toBe(202);
  const opId = opIdFrom(r);
  const seen: string[] = [];
  for (let i = 0; i < faults.length + 2; i++) {
    const op = await waitOpState(opId, ['COMPLETED', 'FAILED_TEMP'], 300_000);
    if (op.operationState === 'COMPLETED') break;
    // nodes install side by side: one attempt may hit several faults, and the failure names each
    const steps = faults.filter(([s]) => op.error.detail.includes(`${s} on `)).map(([s]) => s);
    expect([op.error.detail, steps.length > 0]).toEqual([op.error.detail, true]);
    expect(op.error.detail).toMatch(/on (master|worker) [a-z0-9.-]+ \(127\.\d+\.\d+\.\d+\)/);
    expect(op.error.detail).toContain('injected failure');
    seen.push(...steps);
    expect((await call('POST', `/vnflcm/v1/vnf_lcm_op_occs/${opId}/retry`)).status).toBe(202);
    await eventually('the retry to start', async () => ((await call('GET', `/vnflcm/v1/vnf_lcm_op_occs/${opId}`)).body.operationState !== 'FAILED_TEMP' ? true : undefined));
  }
  expect((await call('GET', `/vnflcm/v1/vnf_lcm_op_occs/${opId}`)).body.operationState).toBe('COMPLETED');
  expect(new Set(seen)).toEqual(new Set(faults.map(([s]) => s)));
  for (const v of await vnfcsOf(id, 'workerNode')) {
    const s = await connectSsh({ host: await serverAddress(v.computeResource.resourceId), port: Number(readState().env.MGMT_SSH_PORT), username: 'ubuntu', password: 'ubuntu' }, { deadlineMs: 30_000 });
    const hosts = (await s.run('cat /etc/hosts')).stdout;
    await s.close();
    expect(hosts.split('\n').filter((l) => l.trim() === `${registry.split(':')[0]} registry.example`)).toHaveLength(1);
  }
  await task(id, 'terminate', { terminationType: 'FORCEFUL' });
}, 900_000);

test('kill -9 of the worker mid-install: the instantiate completes with exactly 3 nodes', async () => {
  const id = await newInstance();
  const r = await call('POST', `/vnflcm/v1/vnf_instances/${id}/instantiate`, params());
  const opId = opIdFrom(r);
  // the install is under way once a node has a step done
  await eventually('a node step done', async () => {
    const c = await withProductStore((s) => clusterOfVnf(s, id));
    const n = c && await withProductStore((s) => clusterNodes(s, c.id));
    return n?.some((x) => x.doneSteps.length > 0) ? true : undefined;
  }, 300_000, 100);
  killWorker();
  restartWorker();
  const op = await waitOpState(opId, ['COMPLETED', 'FAILED_TEMP'], 600_000);
  expect(op.error?.detail ?? op.operationState).toBe('COMPLETED');
  const [master] = await vnfcsOf(id, 'masterNode');
  const conf = await adminConf(master.computeResource.resourceId, path.join(work, 'killed.conf'));
  expect(readyNodes(conf)).toHaveLength(3);
  expect((await instance(id)).instantiatedVnfInfo.vnfcResourceInfo).toHaveLength(3);
  await task(id, 'terminate', { terminationType: 'FORCEFUL' });
}, 900_000);
