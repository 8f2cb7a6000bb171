/**
 * A Node process's memory after a forced garbage collection, by isolate: its
 * main thread and each worker thread (the Temporal worker's workflow threads
 * hold its cached runs), read through the inspector the process opens on
 * SIGUSR1 (127.0.0.1:9229). RSS alone counts garbage not yet collected: two
 * samples a minute apart differ by tens of MiB. Needs WebSocket (Node 20:
 * --experimental-websocket, as the bench scripts run).
 */
import { rssMiB } from './procs';

export interface HeapBreakdown {
  /** RSS after the collections. */
  rssMiB: number;
  /** Live JavaScript heap of the main thread after its collection. */
  mainMiB: number;
  /** The same for each worker thread, largest first. */
  threadsMiB: number[];
}

const INSPECTOR = 'http://127.0.0.1:9229';
const mib = (bytes: number) => Math.round(bytes / 104857.6) / 10;

type Reply = { id?: number; method?: string; params?: Record<string, unknown>; result?: Record<string, unknown> };

export async function heapAfterGc(pid: number): Promise<HeapBreakdown> {
  if (typeof WebSocket === 'undefined') throw new Error('heapAfterGc needs WebSocket: run node with --experimental-websocket');
  process.kill(pid, 'SIGUSR1'); // opens the inspector; a second signal leaves it as it is
  let url: string | undefined;
  for (let i = 0; i < 50 && !url; i++) {
    url = await fetch(`${INSPECTOR}/json/list`).then((r) => r.json() as Promise<{ webSocketDebuggerUrl: string }[]>).then((l) => l[0]?.webSocketDebuggerUrl, () => undefined);
    if (!url) await new Promise((r) => setTimeout(r, 100));
  }
  if (!url) throw new Error(`no inspector on ${INSPECTOR} after SIGUSR1 to ${pid}`);
  const ws = new WebSocket(url);
  await new Promise((resolve, reject) => { ws.onopen = resolve; ws.onerror = reject; });
  let id = 0;
  const waiting = new Map<number, (r: Reply) => void>();
  const attached: string[] = [];
  ws.onmessage = (m: MessageEvent) => {
    const d = JSON.parse(String(m.data)) as Reply;
    if (d.method === 'NodeWorker.attachedToWorker') attached.push(String(d.params!.sessionId));
    const r = d.method === 'NodeWorker.receivedMessageFromWorker' ? JSON.parse(String(d.params!.message)) as Reply : d;
    if (r.id !== undefined) waiting.get(r.id)?.(r), waiting.delete(r.id);
  };
  const call = (method: string, params: object = {}, sessionId?: string) => new Promise<Reply>((resolve) => {
    const msg = { id: ++id, method, params };
    waiting.set(msg.id, resolve);
    ws.send(JSON.stringify(sessionId ? { id: ++id, method: 'NodeWorker.sendMessageToWorker', params: { sessionId, message: JSON.stringify(msg) } } : msg));
  });
  const usedAfterGc = async (sessionId?: string) => {
    await call('HeapProfiler.collectGarbage', {}, sessionId);
    return mib(Number((await call('Runtime.getHeapUsage', {}, sessionId)).result!.usedSize));
  };
  try {
    const pidThere = (await call('Runtime.evaluate', { expression: 'process.pid', returnByValue: true })).result as { result: { value: number } };
    if (pidThere.result.value !== pid) throw new Error(`the inspector on ${INSPECTOR} is process ${pidThere.result.value}'s, not ${pid}'s`);
    await call('NodeWorker.enable', { waitForDebuggerOnStart: false });
    await new Promise((r) => setTimeout(r, 500)); // the attachedToWorker events
    const threadsMiB: number[] = [];
    for (const s of attached) threadsMiB.push(await usedAfterGc(s));
    const mainMiB = await usedAfterGc();
    return { rssMiB: rssMiB(pid), mainMiB, threadsMiB: threadsMiB.sort((a, b) => b - a) };
  } finally {
    ws.close();
  }
}
