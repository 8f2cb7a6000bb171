/**
 * Records workflow histories from an end-to-end test run, for the replay
 * suite (test/unit/replay.test.ts). Run by the harness's teardown when
 * RECORD_HISTORIES names a directory: every workflow the run left on the
 * Temporal server is classified by what its history shows, and the first
 * history of each class is written there. Three classes are cut from longer
 * histories, because they are what a worker finds after an upgrade:
 *  - parked-failed-temp: an op in FAILED_TEMP before the operator's decision;
 *  - parked-coordination: a VNFC in a 202 coordination wait (timer started);
 *  - parked-in-store: a VNFC's coordination wait parked in the store (its activity scheduled).
 */
import fs from 'node:fs';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { temporal } from '@temporalio/proto';

type History = temporal.api.history.v1.IHistory;
type Event = temporal.api.history.v1.IHistoryEvent;

const MAX_BYTES = 512 * 1024; // keep the committed files small
/** The harness's worker's task queue (test/harness/setup.ts); the scripts worker's is this + "-scripts". */
const PRODUCT_QUEUE = 'nfv-lcm-test';

export async function recordHistories(address: string, dir: string): Promise<string[]> {
  fs.mkdirSync(dir, { recursive: true });
  const connection = await Connection.connect({ address });
  const client = new Client({ connection });
  const written: string[] = [];
  const seen = new Set<string>(fs.readdirSync(dir).map((f) => f.replace(/\.json$/, '')));
  try {
    for await (const wf of client.workflow.list()) {
      const history = await client.workflow.getHandle(wf.workflowId, wf.runId).fetchHistory();
      for (const [name, h] of classify(history)) {
        if (seen.has(name)) continue;
        const json = historyToJSON(temporal.api.history.v1.History.fromObject(h));
        if (json.length > MAX_BYTES) continue;
        seen.add(name);
        fs.writeFileSync(path.join(dir, `${name}.json`), json);
        written.push(name);
      }
    }
  } finally {
    await connection.close();
  }
  return written;
}

/** The classes one history stands for, each with the (possibly cut) history to keep. */
export function classify(history: History): [string, History][] {
  const events = history.events ?? [];
  const started = events[0]?.workflowExecutionStartedEventAttributes;
  // the product's workflow types only (not the tests' probes)
  if (!started?.workflowType?.name || !started.taskQueue?.name?.startsWith(PRODUCT_QUEUE)) return [];
  let type = started.workflowType.name;
  const input = decode(started.input?.payloads?.[0]?.data) as { operation?: string; rollback?: boolean } | undefined;
  if (type === 'lcmOperation' && input?.operation) type = `${type}-${input.operation}`;
  const features = new Set<string>();
  // Magnum's ?rollback=True: a failure runs the compensations
  if (input?.rollback === true) features.add('rollback');
  const updates = events.filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes)
    .map((e) => e.workflowExecutionUpdateAcceptedEventAttributes!.acceptedRequest?.input?.name ?? '');
  for (const u of updates) features.add(u);
  if (events.some((e) => opStateOf(e) === 'FAILED_TEMP')) features.add('failedtemp');
  // a Magnum operation that ended *_FAILED (its status recorded, no compensations: an upgrade failed halfway)
  if (!input?.rollback && events.some((e) => /_FAILED$/.test(searchAttributeOf(e, 'ClusterStatus') ?? ''))) features.add('failed');
  // cancelled (by the operator, or a health loop by its cluster's deletion)
  if (events.some((e) => e.workflowExecutionCancelRequestedEventAttributes)) features.add('cancelled');
  // a patch the history took (patched('<id>')): its new branch is a class of its own
  for (const id of patchesOf(events)) features.add(id);
  if (coordinationTimer(events) >= 0) features.add('coordwait');
  // a master replaced in a running control plane (its etcd member removed)
  if (events.some((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'removeEtcdMemberOf')) features.add('etcd-member-removed');
  // a Magnum install that waited for its control-plane images (status_reason said so)
  if (events.some((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'recordClusterWait')) features.add('images-waited');
  const last = events[events.length - 1];
  if (!isClosed(last)) features.add('open');
  const out: [string, History][] = [[[type, ...[...features].sort()].join('-'), history]];

  const parkedAt = parkedInFailedTemp(events);
  if (parkedAt > 0) out.push([`${type}-parked-failed-temp`, { events: events.slice(0, parkedAt) }]);
  const timer = coordinationTimer(events);
  if (timer > 0) out.push([`${type}-parked-coordination`, { events: events.slice(0, timer + 1) }]);
  const parked = events.findIndex((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'awaitCoordinationResult');
  if (parked > 0) out.push([`${type}-parked-in-store`, { events: events.slice(0, parked + 1) }]);
  return out;
}

function decode(data: Uint8Array | null | undefined): unknown {
  if (!data) return undefined;
  try { return JSON.parse(Buffer.from(data).toString('utf8')); } catch { return undefined; }
}

/** The patch ids of the history's patch markers. */
function patchesOf(events: Event[]): string[] {
  return events.flatMap((e) => {
    const m = e.markerRecordedEventAttributes;
    if (m?.markerName !== 'core_patch') return [];
    const id = (decode(m.details?.['patch-data']?.payloads?.[0]?.data) as { id?: string } | undefined)?.id;
    return id ? [id] : [];
  });
}

function opStateOf(e: Event): string | undefined {
  return searchAttributeOf(e, 'LcmOperationState');
}

/** The value a search attribute upsert sets, if the event is one that sets `name`. */
function searchAttributeOf(e: Event, name: string): string | undefined {
  const v = decode(e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields?.[name]?.data);
  return Array.isArray(v) ? String(v[0]) : typeof v === 'string' ? v : undefined;
}

function isClosed(e: Event | undefined): boolean {
  return !!(e?.workflowExecutionCompletedEventAttributes || e?.workflowExecutionFailedEventAttributes
    || e?.workflowExecutionCanceledEventAttributes || e?.workflowExecutionTerminatedEventAttributes
    || e?.workflowExecutionTimedOutEventAttributes || e?.workflowExecutionContinuedAsNewEventAttributes);
}

/**
 * End of the history as it stood while the op sat in FAILED_TEMP: everything before the workflow task
 * that took the operator's decision. -1 if none.
 */
function parkedInFailedTemp(events: Event[]): number {
  const failedTemp = events.findIndex((e) => opStateOf(e) === 'FAILED_TEMP');
  if (failedTemp < 0) return -1;
  const until = events.findIndex((e, i) => i > failedTemp
    && !!(e.workflowExecutionUpdateAdmittedEventAttributes || e.workflowExecutionUpdateAcceptedEventAttributes));
  if (until < 0) return -1;
  // the workflow task that took the decision starts here
  for (let i = until; i > failedTemp; i--) if (events[i].workflowTaskScheduledEventAttributes) return i;
  return -1;
}

/** Index of the first timer started after a coordination POST (a 202 or 503 wait), or -1. */
function coordinationTimer(events: Event[]): number {
  let sawCoord = false;
  for (let i = 0; i < events.length; i++) {
    const name = events[i].activityTaskScheduledEventAttributes?.activityType?.name;
    if (name === 'coordPost' || name === 'coordGet') sawCoord = true;
    if (sawCoord && events[i].timerStartedEventAttributes) return i;
  }
  return -1;
}
