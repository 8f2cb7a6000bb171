/**
 * Events of an operation workflow and all its descendants (child workflow ids
 * start with `<rootId>/`): total, per run, the largest single run, and per
 * level of the tree (root = 0; e.g. chunks = 1, one run per VNFC = 2) the
 * runs and the activities they schedule.
 */
import type { Client } from '@temporalio/client';
import { tsToMs } from '@temporalio/common/lib/time';

export interface TreeStats {
  /** How the descendants were found: a visibility query, or the ids read from the parent's history. */
  listedBy: 'STARTS_WITH' | 'parent history';
  runs: number;
  children: number;
  totalEvents: number;
  rootEvents: number;
  maxEvents: number;
  maxEventsRun: string;
  rootActivities: Record<string, number>;
  /** Activities scheduled by all children together, by type. */
  childActivities: Record<string, number>;
  childTimers: number;
  /** Per depth below the root (index 0 = root). */
  levels: LevelStats[];
}

export interface LevelStats {
  runs: number; events: number; maxEvents: number; activities: Record<string, number>; timers: number;
  /** Mean per run: wall time (first to last event) and scheduled -> completed time by activity type. */
  meanMs: number; meanActivityMs: Record<string, number>;
}

interface RunStats { events: number; activities: Record<string, number>; activityMs: Record<string, number>; timers: number; childIds: string[]; ms: number }

async function runStats(client: Client, workflowId: string): Promise<RunStats> {
  const events = (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const s: RunStats = { events: events.length, activities: {}, activityMs: {}, timers: 0, childIds: [], ms: 0 };
  const scheduled = new Map<number, { type: string; at: number }>();
  for (const e of events) {
    const at = tsToMs(e.eventTime);
    const type = e.activityTaskScheduledEventAttributes?.activityType?.name;
    if (type) {
      s.activities[type] = (s.activities[type] ?? 0) + 1;
      scheduled.set(Number(e.eventId), { type, at });
    }
    const done = scheduled.get(Number(e.activityTaskCompletedEventAttributes?.scheduledEventId ?? -1));
    if (done) s.activityMs[done.type] = (s.activityMs[done.type] ?? 0) + at - done.at;
    if (e.timerStartedEventAttributes) s.timers++;
    const child = e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId;
    if (child) s.childIds.push(child);
  }
  if (events.length) s.ms = tsToMs(events[events.length - 1].eventTime) - tsToMs(events[0].eventTime);
  return s;
}

/** Ids of the descendants by visibility (STARTS_WITH), or undefined when the server refuses the query. */
async function listDescendants(client: Client, rootId: string): Promise<string[] | undefined> {
  try {
    const ids: string[] = [];
    for await (const w of client.workflow.list({ query: `WorkflowId STARTS_WITH "${rootId}/"` })) ids.push(w.workflowId);
    return ids;
  } catch {
    return undefined;
  }
}

const add = (into: Record<string, number>, from: Record<string, number>) => {
  for (const [k, v] of Object.entries(from)) into[k] = (into[k] ?? 0) + v;
};

/** Mapped with at most `limit` calls in flight. */
export async function pool<T, R>(items: T[], limit: number, fn: (t: T, i: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const work = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, work));
  return out;
}

export async function treeStats(client: Client, rootId: string): Promise<TreeStats> {
  const root = await runStats(client, rootId);
  let ids = await listDescendants(client, rootId);
  const listedBy = ids && ids.length >= root.childIds.length ? 'STARTS_WITH' : 'parent history';
  if (listedBy === 'parent history') ids = root.childIds; // visibility may lag; grandchildren then missed
  const kids = await pool(ids!, 8, (id) => runStats(client, id));
  const s: TreeStats = {
    listedBy, runs: 1 + kids.length, children: kids.length, totalEvents: root.events, rootEvents: root.events,
    maxEvents: root.events, maxEventsRun: rootId, rootActivities: root.activities, childActivities: {}, childTimers: 0,
    levels: [{ runs: 1, events: root.events, maxEvents: root.events, activities: { ...root.activities }, timers: root.timers, meanMs: root.ms, meanActivityMs: { ...root.activityMs } }],
  };
  kids.forEach((k, i) => {
    const depth = ids![i].slice(rootId.length).split('/').length - 1;
    while (s.levels.length <= depth) s.levels.push({ runs: 0, events: 0, maxEvents: 0, activities: {}, timers: 0, meanMs: 0, meanActivityMs: {} });
    const l = s.levels[depth];
    l.runs++;
    l.events += k.events;
    l.maxEvents = Math.max(l.maxEvents, k.events);
    add(l.activities, k.activities);
    l.timers += k.timers;
    l.meanMs += k.ms; // sums until the end
    add(l.meanActivityMs, k.activityMs);
    s.totalEvents += k.events;
    if (k.events > s.maxEvents) [s.maxEvents, s.maxEventsRun] = [k.events, ids![i]];
    add(s.childActivities, k.activities);
    s.childTimers += k.timers;
  });
  for (const l of s.levels.slice(1)) {
    l.meanMs = Math.round(l.meanMs / l.runs);
    for (const k of Object.keys(l.meanActivityMs)) l.meanActivityMs[k] = Math.round(l.meanActivityMs[k] / l.runs);
  }
  return s;
}

export const sum = (r: Record<string, number>) => Object.values(r).reduce((a, b) => a + b, 0);
