/** The product operations of the rolling benchmark, each awaited until its workflow ends. */
import type { Client } from '@temporalio/client';
import type { Api } from './api';

/** Resolves when the op's workflow returns COMPLETED; rejects on FAILED_TEMP/FAILED/ROLLED_BACK or after deadlineMs. */
export async function awaitOp(api: Api, client: Client, opOccId: string, deadlineMs: number): Promise<void> {
  let stop = false;
  const watch = (async () => { // an op in FAILED_TEMP waits for an operator: its workflow never returns
    const until = Date.now() + deadlineMs;
    while (!stop) {
      await new Promise((r) => setTimeout(r, 1000));
      if (stop) return;
      const o = await api.opOcc(opOccId);
      if (['FAILED_TEMP', 'FAILED', 'ROLLED_BACK'].includes(o.operationState)) throw new Error(`op ${opOccId} ${o.operationState}: ${o.error?.detail ?? ''}`);
      if (Date.now() > until) throw new Error(`op ${opOccId} not done within ${deadlineMs / 1000} s (${o.operationState})`);
    }
  })();
  try {
    const state = await Promise.race([client.workflow.getHandle(opOccId).result(), watch]);
    if (state !== 'COMPLETED') throw new Error(`op ${opOccId} ended ${String(state)}`);
  } finally {
    stop = true;
  }
}

/** The change_vnfpkg request over VDU1 only, coordinated with the EM at `endpoint`. */
export function changeBody(vnfdId: string, endpoint: string, timeoutSec: number) {
  const param = (phase: string) => ({ cp_name: 'VDU1_CP1', username: 'ubuntu', password: 'bench-pw', endpoint, timeout: timeoutSec, inputParams: { phase } });
  return {
    vnfdId,
    additionalParams: { upgrade_type: 'RollingUpdate', vdu_params: [{ vdu_id: 'VDU1', old_vnfc_param: param('old'), new_vnfc_param: param('new') }] },
  };
}

/** Creates and instantiates one instance at `level`; returns its id and the instantiate's wall time. */
export async function instantiated(api: Api, client: Client, vnfdId: string, level: string, deadlineMs: number): Promise<{ id: string; ms: number }> {
  const id = await api.createInstanceV2(vnfdId);
  const t0 = performance.now();
  await awaitOp(api, client, await api.instantiateV2(id, level), deadlineMs);
  return { id, ms: Math.round(performance.now() - t0) };
}
