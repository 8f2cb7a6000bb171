/** Loading the rows an LCM activity works on; a missing row is not retryable. */
import { ApplicationFailure } from '@temporalio/activity';
import { eq } from 'drizzle-orm';
import type { Db } from '../common/db';
import { vnfInstances, vnfLcmOpOccs, vnfPackages } from '../common/db/schema';
import type { SecretBox } from '../common/secrets';
import type { InstantiateInput } from '../infra/hot';
import type { Vnfd } from '../vnfpkg/vnfd-model';

export function loadOpOcc(db: Db, opOccId: string) {
  const op = db.select().from(vnfLcmOpOccs).where(eq(vnfLcmOpOccs.id, opOccId)).get();
  if (!op) throw ApplicationFailure.nonRetryable(`op occ ${opOccId} not found`, 'NotFound');
  return op;
}

export function loadInstance(db: Db, vnfInstanceId: string) {
  const inst = db.select().from(vnfInstances).where(eq(vnfInstances.id, vnfInstanceId)).get();
  if (!inst) throw ApplicationFailure.nonRetryable(`VNF instance ${vnfInstanceId} not found`, 'NotFound');
  return inst;
}

export function loadVnfd(db: Db, packageId: string): Vnfd {
  const pkg = db.select({ vnfd: vnfPackages.vnfd }).from(vnfPackages).where(eq(vnfPackages.id, packageId)).get();
  if (!pkg?.vnfd) throw ApplicationFailure.nonRetryable(`VNF package ${packageId} has no VNFD`, 'NotFound');
  return pkg.vnfd as unknown as Vnfd;
}

/** The full request of an op occ, secrets included (never returned to a workflow). */
export function opParams<T = Record<string, unknown>>(box: SecretBox, op: { operationParamsSealed: string }): T {
  return box.openJson<T>(op.operationParamsSealed);
}

/** The flavour an op works on: the request's flavourId, else the one the instance was instantiated with. */
export function flavourOf(db: Db, box: SecretBox, op: { operation: string; operationParamsSealed: string; vnfInstanceId: string }) {
  const inst = loadInstance(db, op.vnfInstanceId);
  const params = opParams<{ flavourId?: string }>(box, op);
  const flavourId = (op.operation === 'INSTANTIATE' ? params.flavourId : undefined) ?? (inst.instantiatedVnfInfo as { flavourId?: string } | null)?.flavourId ?? '';
  return { inst, flavour: loadVnfd(db, inst.vnfPkgId).flavours[flavourId] };
}

/** What the instance was (or is being) instantiated with: heal and scale rebuild the stack from it. */
export function instantiateInputOf(box: SecretBox, op: { operation: string; operationParamsSealed: string }, inst: { id: string; instantiateParamsSealed: string | null }): InstantiateInput {
  if (op.operation === 'INSTANTIATE') return opParams<InstantiateInput>(box, op);
  if (!inst.instantiateParamsSealed) throw ApplicationFailure.nonRetryable(`VNF instance ${inst.id} has no instantiation record`, 'InvalidInput');
  return box.openJson<InstantiateInput>(inst.instantiateParamsSealed);
}
