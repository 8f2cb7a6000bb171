/**
 * Where a workflow's time went, read from its Temporal history: activities
 * (scheduled -> completed, queueing included), timers (started -> fired), and
 * the rest (workflow tasks, starting, API).
 */
import type { Client } from '@temporalio/client';
import { tsToMs } from '@temporalio/common/lib/time';

export interface HistoryStats {
  /** Activity tasks (through the task queue). */
  activities: number;
  /** Local activities (run by the workflow's own worker; a marker each in the history). */
  localActivities: number;
  activityTypes: Record<string, number>;
  timers: number;
  workflowTasks: number;
  /** First event to last event. */
  totalMs: number;
  activityMs: number;
  timerMs: number;
  /** Epoch ms: the workflow's first event, and its first activity task's schedule, start and completion. */
  startedAt: number;
  firstActivity?: { type: string; scheduledAt: number; startedAt?: number; completedAt?: number };
}

export async function historyStats(client: Client, workflowId: string): Promise<HistoryStats> {
  const events = (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const at = new Map(events.map((e) => [Number(e.eventId), tsToMs(e.eventTime)]));
  const s: HistoryStats = { activities: 0, localActivities: 0, activityTypes: {}, timers: 0, workflowTasks: 0, totalMs: 0, activityMs: 0, timerMs: 0, startedAt: events.length ? tsToMs(events[0].eventTime) : 0 };
  let firstScheduled: number | undefined;
  for (const e of events) {
    const t = tsToMs(e.eventTime);
    if (e.activityTaskScheduledEventAttributes) {
      s.activities++;
      const type = e.activityTaskScheduledEventAttributes.activityType?.name ?? '?';
      s.activityTypes[type] = (s.activityTypes[type] ?? 0) + 1;
      if (!s.firstActivity) {
        s.firstActivity = { type, scheduledAt: t };
        firstScheduled = Number(e.eventId);
      }
    }
    if (s.firstActivity && Number(e.activityTaskStartedEventAttributes?.scheduledEventId) === firstScheduled) s.firstActivity.startedAt = t;
    if (s.firstActivity && Number(e.activityTaskCompletedEventAttributes?.scheduledEventId) === firstScheduled) s.firstActivity.completedAt = t;
    if (e.activityTaskCompletedEventAttributes) s.activityMs += t - at.get(Number(e.activityTaskCompletedEventAttributes.scheduledEventId))!;
    if (e.markerRecordedEventAttributes?.markerName === 'core_local_activity') s.localActivities++;
    if (e.timerStartedEventAttributes) s.timers++;
    if (e.timerFiredEventAttributes) s.timerMs += t - at.get(Number(e.timerFiredEventAttributes.startedEventId))!;
    if (e.workflowTaskScheduledEventAttributes) s.workflowTasks++;
  }
  if (events.length) s.totalMs = tsToMs(events[events.length - 1].eventTime) - tsToMs(events[0].eventTime);
  return s;
}

export interface HistorySummary {
  histories: number;
  /** A count, or "min..max" when the histories differ. */
  activities: number | string;
  localActivities: number | string;
  timers: number | string;
  workflowTasks: number | string;
  activityTypes: Record<string, number>;
  meanTotalMs: number;
  meanActivityMs: number;
  meanTimerMs: number;
  meanOtherMs: number;
}

/** Means over several histories (counts as min..max when they differ). */
export function summarize(all: HistoryStats[]): HistorySummary {
  const mean = (f: (s: HistoryStats) => number) => Math.round((all.reduce((a, s) => a + f(s), 0) / all.length) * 10) / 10;
  const range = (f: (s: HistoryStats) => number) => {
    const v = all.map(f);
    return Math.min(...v) === Math.max(...v) ? v[0] : `${Math.min(...v)}..${Math.max(...v)}`;
  };
  return {
    histories: all.length,
    activities: range((s) => s.activities),
    localActivities: range((s) => s.localActivities),
    timers: range((s) => s.timers),
    workflowTasks: range((s) => s.workflowTasks),
    activityTypes: all[0]?.activityTypes ?? {},
    meanTotalMs: mean((s) => s.totalMs),
    meanActivityMs: mean((s) => s.activityMs),
    meanTimerMs: mean((s) => s.timerMs),
    meanOtherMs: mean((s) => s.totalMs - s.activityMs - s.timerMs),
  };
}

/**
 * A workflow's whole time from its history, and the time no activity of it
 * was running (the union of its activities' scheduled ->
 * closed intervals taken away): what the workflow itself adds over the same
 * activities, run back to back where they ran back to back.
 */
export async function workflowTimes(client: Client, workflowId: string): Promise<{ totalMs: number; outsideActivitiesMs: number }> {
  const events = (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const at = new Map(events.map((e) => [Number(e.eventId), tsToMs(e.eventTime)]));
  const spans: [number, number][] = [];
  for (const e of events) {
    const done = e.activityTaskCompletedEventAttributes ?? e.activityTaskFailedEventAttributes;
    if (done?.scheduledEventId) spans.push([at.get(Number(done.scheduledEventId))!, tsToMs(e.eventTime)]);
  }
  spans.sort((x, y) => x[0] - y[0]);
  let covered = 0;
  let [from, to] = [-Infinity, -Infinity];
  for (const [a, b] of spans) {
    if (a > to) { if (to > from) covered += to - from; [from, to] = [a, b]; } else to = Math.max(to, b);
  }
  if (to > from) covered += to - from;
  const totalMs = events.length ? tsToMs(events[events.length - 1].eventTime) - tsToMs(events[0].eventTime) : 0;
  return { totalMs, outsideActivitiesMs: Math.round(totalMs - covered) };
}

/**
 * Per node, the time from its first activity scheduled to its last one completed, for the activities whose
 * input names a serverId (a rolling operation's node by node time, e.g. an upgrade's).
 */
export async function perNodeSpans(client: Client, workflowId: string): Promise<Record<string, number>> {
  const events = (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const serverOf = new Map<number, string>();
  const span: Record<string, { from: number; to: number }> = {};
  for (const e of events) {
    const t = tsToMs(e.eventTime);
    const sched = e.activityTaskScheduledEventAttributes;
    if (sched) {
      const data = sched.input?.payloads?.[0]?.data;
      const serverId = data ? (JSON.parse(Buffer.from(data).toString('utf8')) as { serverId?: string }).serverId : undefined;
      if (serverId) {
        serverOf.set(Number(e.eventId), serverId);
        span[serverId] ??= { from: t, to: t };
      }
    }
    const done = e.activityTaskCompletedEventAttributes;
    const server = done && serverOf.get(Number(done.scheduledEventId));
    if (server) span[server].to = t;
  }
  return Object.fromEntries(Object.entries(span).map(([s, x]) => [s, x.to - x.from]));
}
