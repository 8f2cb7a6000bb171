/**
 * One LCM activity's view of its operation. An activity makes one
 * (`opContext(deps, opOccId)`: the op occ is read then) and passes it on to
 * the helpers it calls; the instance, the opened request, the VNFDs and the
 * BaseHOT files are each read on first use and kept for the rest of the
 * activity. So no row is read twice in one activity, however many helpers
 * need it. A retry is a new activity and reads afresh; a context never
 * leaves its activity (it holds the opened request, secrets included).
 */
import type { Store } from '../store';
import type { InstanceRow } from '../store/repos/instances';
import type { OpOccRow } from '../store/repos/op-occs';
import { baseHotFiles } from '../store/repos/package-files';
import type { SecretBox } from '../common/secrets';
import type { InstantiateInput } from '../infra/hot';
import type { Vnfd, VnfdFlavour } from '../model/vnfd';
import { loadInstance, loadOpOcc, loadVnfd, opParams, stackInputOf, type Connectivity } from './records';

export interface OpContext {
  readonly op: OpOccRow;
  /** The op's VNF instance. */
  instance(): Promise<InstanceRow>;
  /** The op's request, secrets included. */
  params<T = Record<string, unknown>>(): T;
  /** The VNFD of a package (default: the instance's). */
  vnfd(packageId?: string): Promise<Vnfd>;
  /** The flavour the op works on, in the instance's package: the request's flavourId at instantiate, else the one the instance has (read as a record's index: absent, it is undefined). */
  flavour(): Promise<VnfdFlavour>;
  /** A package's BaseHOT files (default: the instance's package). */
  baseHotFiles(packageId?: string): Promise<Record<string, Buffer>>;
  /** What the instance is instantiated with (at instantiate: the request), with its current or the requested connectivity (records.ts stackInputOf). */
  instantiateInput(connectivity?: Connectivity): Promise<InstantiateInput>;
}

export async function opContext({ db, box }: { db: Store; box: SecretBox }, opOccId: string): Promise<OpContext> {
  const op = await loadOpOcc(db, opOccId);
  const once = <T>(load: () => Promise<T>) => {
    let p: Promise<T> | undefined;
    return () => (p ??= load());
  };
  const perPackage = <T>(load: (packageId: string) => Promise<T>) => {
    const loaded = new Map<string, Promise<T>>();
    return async (packageId?: string) => {
      const id = packageId ?? (await instance()).vnfPkgId;
      if (!loaded.has(id)) loaded.set(id, load(id));
      return loaded.get(id)!;
    };
  };
  const instance = once(() => loadInstance(db, op.vnfInstanceId));
  const vnfd = perPackage((id) => loadVnfd(db, id));
  const files = perPackage((id) => baseHotFiles(db, id));
  return {
    op,
    instance,
    params: <T>() => opParams<T>(box, op),
    vnfd,
    baseHotFiles: files,
    async flavour() {
      const inst = await instance();
      const requested = op.operation === 'INSTANTIATE' ? opParams<{ flavourId?: string }>(box, op).flavourId : undefined;
      return (await vnfd()).flavours[requested ?? inst.instantiatedVnfInfo?.flavourId ?? ''];
    },
    async instantiateInput(connectivity?: Connectivity) {
      return stackInputOf(box, op, await instance(), connectivity);
    },
  };
}

