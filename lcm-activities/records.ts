/** Loading the rows an LCM activity works on (through its OpContext, op-context.ts); a missing row is not retryable. */
import { ApplicationFailure } from '@temporalio/activity';
import type { Store } from '../store';
import { opOccById } from '../store/repos/op-occs';
import { instanceById } from '../store/repos/instances';
import { packageById } from '../store/repos/packages';
import type { SecretBox } from '../common/secrets';
import type { InstantiateInput } from '../infra/hot';
import { withExtConnectivity } from '../infra/hot/ext-links';
import type { Vnfd } from '../model/vnfd';

export async function loadOpOcc(db: Store, opOccId: string) {
  const op = await opOccById(db, opOccId);
  if (!op) throw ApplicationFailure.nonRetryable(`op occ ${opOccId} not found`, 'NotFound');
  return op;
}

export async function loadInstance(db: Store, vnfInstanceId: string) {
  const inst = await instanceById(db, vnfInstanceId);
  if (!inst) throw ApplicationFailure.nonRetryable(`VNF instance ${vnfInstanceId} not found`, 'NotFound');
  return inst;
}

export async function loadVnfd(db: Store, packageId: string): Promise<Vnfd> {
  const pkg = await packageById(db, packageId);
  if (!pkg?.vnfd) throw ApplicationFailure.nonRetryable(`VNF package ${packageId} has no VNFD`, 'NotFound');
  return pkg.vnfd;
}

/** The full request of an op occ, secrets included (never returned to a workflow). */
export function opParams<T = Record<string, unknown>>(box: SecretBox, op: { operationParamsSealed: string }): T {
  return box.openJson<T>(op.operationParamsSealed);
}

/** What the instance was (or is being) instantiated with: heal and scale rebuild the stack from it. */
function instantiateInputOf(box: SecretBox, op: { operation: string; operationParamsSealed: string }, inst: { id: string; instantiateParamsSealed: string | null }): InstantiateInput {
  if (op.operation === 'INSTANTIATE') return opParams<InstantiateInput>(box, op);
  if (!inst.instantiateParamsSealed) throw ApplicationFailure.nonRetryable(`VNF instance ${inst.id} has no instantiation record`, 'InvalidInput');
  return box.openJson<InstantiateInput>(inst.instantiateParamsSealed);
}

/**
 * Which external connectivity a stack is built and described with: the
 * instance's as recorded, or the one the op's ChangeExtVnfConnectivityRequest
 * asks for (merged over it; the instance's record changes only when that op
 * completes, so a rollback rebuilds from 'current').
 */
export type Connectivity = 'current' | 'requested';

export function stackInputOf(box: SecretBox, op: { operation: string; operationParamsSealed: string }, inst: { id: string; instantiateParamsSealed: string | null }, connectivity: Connectivity = 'current'): InstantiateInput {
  const input = instantiateInputOf(box, op, inst);
  if (connectivity === 'current') return input;
  return withExtConnectivity(input, opParams<{ extVirtualLinks?: NonNullable<InstantiateInput['extVirtualLinks']> }>(box, op).extVirtualLinks ?? []);
}
