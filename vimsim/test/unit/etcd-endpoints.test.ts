/**
 * The simulated kubeadm finds the etcd members from the etcd mirror pods'
 * advertise-client-urls annotation and, as kubeadm does, reads again until
 * they are there: a join right after the first master's init may find no
 * mirror pod yet, or one not yet annotated (CI #46).
 */
import { etcdEndpoints } from '../../kube/kubeadm/etcd-member';

const ANNOTATION = 'kubeadm.kubernetes.io/etcd.advertise-client-urls';
type Pods = { items: { metadata: { annotations?: Record<string, string> } }[] };

/** An API whose answers to the pod list come from `answers` in turn (the last one repeated); an Error is thrown. */
function api(answers: (Pods | Error)[]) {
  let n = 0;
  return {
    reads: () => n,
    get: async <T>(): Promise<T> => {
      const a = answers[Math.min(n++, answers.length - 1)];
      if (a instanceof Error) throw a;
      return a as T;
    },
  };
}

test('reads again until a mirror pod carries its annotation: none yet, one unannotated, an API error, then two members', async () => {
  const a = api([
    { items: [] },
    { items: [{ metadata: {} }] },
    new Error('dial tcp 127.0.0.1:6443: connect: connection refused'),
    { items: [{ metadata: { annotations: { [ANNOTATION]: 'https://127.20.0.10:2379' } } }, { metadata: { annotations: { [ANNOTATION]: 'https://127.20.0.11:2379,https://127.20.0.10:2379' } } }] },
  ]);
  expect(await etcdEndpoints(a, 10_000)).toEqual(['https://127.20.0.10:2379', 'https://127.20.0.11:2379']);
  expect(a.reads()).toBe(4);
});

test('gives up at its deadline with the last reason, as kubeadm words it', async () => {
  await expect(etcdEndpoints(api([{ items: [] }]), 600)).rejects.toThrow('could not retrieve the list of etcd endpoints: no etcd pods are present');
  await expect(etcdEndpoints(api([{ items: [{ metadata: {} }] }]), 0)).rejects.toThrow('could not retrieve the list of etcd endpoints: etcd pods are missing their advertise-client-urls annotation');
});
