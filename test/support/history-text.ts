/**
 * Everything a workflow's history says, as text: every payload of every
 * event decoded (its `data` bytes as the encoding says: JSON or plain text
 * in UTF-8), plus every string (failure messages, stack traces) and every
 * other byte field. Memo, search attributes, inputs, activity inputs and
 * results, signals, updates and failures' details are all payloads, so all
 * are covered. A JSON.stringify of the history would not do: payload data
 * is a Uint8Array and stringifies as {"0":123,…}.
 */
import { temporalClient } from './api';

type Payload = { metadata?: Record<string, Uint8Array | null> | null; data?: Uint8Array | null };

const isPayload = (v: object): v is Payload => 'data' in v && ((v as Payload).data instanceof Uint8Array || 'metadata' in v);

function decodePayload(p: Payload): string {
  const encoding = p.metadata?.encoding ? Buffer.from(p.metadata.encoding).toString('utf8') : '';
  const data = p.data ? Buffer.from(p.data) : Buffer.alloc(0);
  // json/plain, json/protobuf and binary/plain all carry UTF-8 text for our payloads; base64 too, in case a converter wraps
  const text = data.toString('utf8');
  return `[${encoding}] ${text}\n${encoding.startsWith('binary') ? data.toString('base64') : ''}`;
}

export function historyToText(history: unknown): { text: string; payloads: number; events: number } {
  const parts: string[] = [];
  let payloads = 0;
  const walk = (v: unknown, depth: number): void => {
    if (depth > 200 || v === null || v === undefined) return;
    if (typeof v === 'string') parts.push(v);
    else if (v instanceof Uint8Array) parts.push(Buffer.from(v).toString('utf8'));
    else if (Array.isArray(v)) v.forEach((x) => walk(x, depth + 1));
    else if (typeof v === 'object') {
      if (isPayload(v)) {
        payloads++;
        parts.push(decodePayload(v));
      }
      for (const x of Object.values(v)) walk(x, depth + 1);
    }
  };
  walk(history, 0);
  const events = (history as { events?: unknown[] }).events?.length ?? 0;
  return { text: parts.join('\n'), payloads, events };
}

export async function workflowHistoryText(workflowId: string): Promise<{ text: string; payloads: number; events: number }> {
  const client = await temporalClient();
  try {
    return historyToText(await client.workflow.getHandle(workflowId).fetchHistory());
  } finally {
    await client.connection.close();
  }
}
