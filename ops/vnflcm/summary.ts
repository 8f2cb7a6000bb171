/**
 * What the Temporal Web UI shows for an operation (workflow user metadata):
 * a one-line summary from the operation's module, and details in Markdown.
 * Built from the op occ as recorded: its operationParams are already masked
 * by schema, so no secret reaches Temporal.
 */
import { operationModule } from '../registry';
import type { vnfInstances, vnfLcmOpOccs } from '../../store/schema';

type Op = Pick<typeof vnfLcmOpOccs.$inferSelect, 'id' | 'vnfInstanceId' | 'projectId' | 'operation' | 'operationParams'>;
type Instance = Pick<typeof vnfInstances.$inferSelect, 'vnfInstanceName' | 'vimId'>;

const MAX_SUMMARY = 200;
const MAX_DETAILS = 8 * 1024;

export function describeOperation(op: Op, inst: Instance | undefined): { summary: string; details: string } {
  const params = (op.operationParams ?? {}) as Record<string, unknown>;
  const line = operationModule(op.operation)?.summary({
    vnfInstanceId: op.vnfInstanceId, vnfInstanceName: inst?.vnfInstanceName, vimId: inst?.vimId, params,
  }) ?? `${op.operation} ${op.vnfInstanceId}`;
  const request = JSON.stringify(params, null, 2);
  const details = [
    `**Op occ** ${op.id}`,
    `**VNF instance** ${op.vnfInstanceId}${inst?.vnfInstanceName ? ` (${oneLine(inst.vnfInstanceName)})` : ''}`,
    `**Project** ${op.projectId || '(none)'}`,
    '**Request** (secrets masked)',
    '```json', request.length > MAX_DETAILS ? `${request.slice(0, MAX_DETAILS)}\n…` : request, '```',
  ].join('\n\n');
  return { summary: clip(oneLine(line), MAX_SUMMARY), details };
}

/** Names and causes are the caller's text: one line, no Markdown line breaks smuggled in. */
const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();
const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
