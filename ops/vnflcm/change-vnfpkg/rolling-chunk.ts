/**
 * A run of consecutive VNFCs of a rolling change_vnfpkg, one rollVnfc child
 * each. Chunks keep every workflow history small: the op workflow sees one
 * child per CHUNK VNFCs, a chunk at most CHUNK children (1,000 VNFCs stay far
 * under Temporal's event limits).
 */
import { executeChild, workflowInfo } from '@temporalio/workflow';
import { rollVnfc, RollVnfcInput } from './roll-vnfc';

export const CHUNK = 100;

export interface RollingChunkInput {
  /** One entry per VNFC of the chunk, in order. */
  vnfcs: RollVnfcInput[];
}

export async function rollingChunk({ vnfcs }: RollingChunkInput): Promise<void> {
  for (const v of vnfcs) {
    await executeChild(rollVnfc, {
      args: [v],
      workflowId: `${workflowInfo().workflowId}/${v.isRollback ? 'rollback' : 'update'}-${v.target.heatResourceName}`,
    });
  }
}
