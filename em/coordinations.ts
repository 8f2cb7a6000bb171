/**
 * The EM's coordinations: what each POST, GET and cancel does to them, and
 * the record kept of every one (request, behaviour, result, timestamps,
 * counts). Pure state, no HTTP.
 *
 * POSTs are grouped by key = (vnfLcmOpOccId, inputParams.vnfcInstanceId,
 * coordinationActionName): the busy behaviour counts POSTs per key, and the
 * POSTs rejected with 503 are recorded on the coordination that the key's
 * next accepted POST creates.
 */
import crypto from 'node:crypto';
import { COORD_BASE, type LcmCoord, type LcmCoordRequest } from '../model/coordination';
import { type Behaviour, DEFAULT_RETRY_AFTER, resolveBehaviour } from './behaviour';

export type CoordinationState = 'REJECTED' | 'PENDING' | 'DECIDED';

export interface RecordedCoordination {
  id: string;
  /** key the busy behaviour counts POSTs by */
  key: { vnfLcmOpOccId: string; vnfcInstanceId?: string; coordinationActionName: string };
  /** body of the last POST */
  request: LcmCoordRequest;
  /** where the behaviour came from: the EM's setting or inputParams.emBehaviour */
  behaviourSource: 'em' | 'request';
  /** the behaviour that applied to the last POST (a busy layer shows as {mode:'busy', retryAfter}) */
  behaviour: ReturnType<typeof resolveBehaviour>;
  /** REJECTED: only 503/error answers so far (no resource); PENDING: async/hang running; DECIDED: has a result */
  state: CoordinationState;
  mode?: 'sync' | 'async' | 'hang';
  result?: 'CONTINUE' | 'ABORT' | 'CANCELLED';
  posts: number;
  rejectedPosts: number;
  gets: number;
  cancelled: boolean;
  firstPostAt: string;
  acceptedAt?: string;
  decidedAt?: string;
  cancelledAt?: string;
  lastGetAt?: string;
}

interface Internal {
  rec: RecordedCoordination;
  keyString: string;
  acceptedMs?: number;
  /** base URL (scheme://host:port) the accepting POST reached the EM by */
  base?: string;
}

export type PostOutcome =
  | { kind: 'busy'; coordination: RecordedCoordination; retryAfter: string }
  | { kind: 'error'; coordination: RecordedCoordination; status: number; detail?: string; retryAfter?: string }
  | { kind: 'created'; coordination: RecordedCoordination; lcmCoord: LcmCoord }
  | { kind: 'accepted'; coordination: RecordedCoordination; retryAfter: string };

export type GetOutcome =
  | { kind: 'unknown' }
  | { kind: 'pending'; retryAfter: string }
  | { kind: 'decided'; lcmCoord: LcmCoord };

export type CancelOutcome = { kind: 'unknown' } | { kind: 'decided'; result: string } | { kind: 'cancelled' };

const iso = (ms: number) => new Date(ms).toISOString();

export class Coordinations {
  private readonly byId = new Map<string, Internal>();
  private readonly all: Internal[] = [];
  /** POSTs seen per key (drives busy) */
  private readonly postsPerKey = new Map<string, number>();
  /** the key's coordination that has only been rejected so far */
  private readonly openByKey = new Map<string, Internal>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Absolute URL of a coordination resource. */
  static url(base: string, id: string): string {
    return `${base}${COORD_BASE}/coordinations/${id}`;
  }

  /** Forget the busy counters (the EM's behaviour changed). */
  resetCounters(): void {
    this.postsPerKey.clear();
  }

  /** `base`: scheme://host:port the client reached the EM by (Location and _links.self). */
  post(request: LcmCoordRequest, behaviour: Behaviour, source: 'em' | 'request', base: string): PostOutcome {
    const now = this.now();
    const vnfc = request.inputParams?.vnfcInstanceId;
    const key = {
      vnfLcmOpOccId: request.vnfLcmOpOccId,
      ...(vnfc !== undefined ? { vnfcInstanceId: typeof vnfc === 'string' ? vnfc : JSON.stringify(vnfc) } : {}),
      coordinationActionName: request.coordinationActionName,
    };
    const keyString = JSON.stringify([key.vnfLcmOpOccId, key.vnfcInstanceId ?? null, key.coordinationActionName]);
    const attempt = this.postsPerKey.get(keyString) ?? 0;
    this.postsPerKey.set(keyString, attempt + 1);
    const effective = resolveBehaviour(behaviour, attempt);

    let c = this.openByKey.get(keyString);
    if (!c) {
      c = {
        keyString,
        rec: {
          id: crypto.randomUUID(), key, request, behaviourSource: source, behaviour: effective, state: 'REJECTED',
          posts: 0, rejectedPosts: 0, gets: 0, cancelled: false, firstPostAt: iso(now),
        },
      };
      this.openByKey.set(keyString, c);
      this.all.push(c);
    }
    const rec = c.rec;
    rec.posts += 1;
    rec.request = request;
    rec.behaviour = effective;
    rec.behaviourSource = source;

    if (effective.mode === 'busy') {
      rec.rejectedPosts += 1;
      return { kind: 'busy', coordination: snapshot(rec), retryAfter: effective.retryAfter };
    }
    if (effective.mode === 'error') {
      rec.rejectedPosts += 1;
      return {
        kind: 'error', coordination: snapshot(rec), status: effective.status,
        ...(effective.detail !== undefined ? { detail: effective.detail } : {}),
        ...(effective.retryAfter !== undefined ? { retryAfter: String(effective.retryAfter) } : {}),
      };
    }

    // accepted: the coordination becomes a resource; the key's next POST starts a new one
    this.openByKey.delete(keyString);
    this.byId.set(rec.id, c);
    c.acceptedMs = now;
    c.base = base;
    rec.acceptedAt = iso(now);
    rec.mode = effective.mode;
    if (effective.mode === 'sync') {
      rec.state = 'DECIDED';
      rec.result = effective.result;
      rec.decidedAt = iso(now);
      return { kind: 'created', coordination: snapshot(rec), lcmCoord: this.lcmCoord(c) };
    }
    rec.state = 'PENDING';
    return { kind: 'accepted', coordination: snapshot(rec), retryAfter: String(effective.retryAfter ?? DEFAULT_RETRY_AFTER) };
  }

  get(id: string): GetOutcome {
    const c = this.byId.get(id);
    if (!c) return { kind: 'unknown' };
    const now = this.now();
    const rec = c.rec;
    rec.gets += 1;
    rec.lastGetAt = iso(now);
    this.settle(c, now, true);
    if (rec.state === 'DECIDED') return { kind: 'decided', lcmCoord: this.lcmCoord(c) };
    const b = rec.behaviour;
    const retryAfter = 'retryAfter' in b && b.retryAfter !== undefined ? String(b.retryAfter) : DEFAULT_RETRY_AFTER;
    return { kind: 'pending', retryAfter };
  }

  cancel(id: string): CancelOutcome {
    const c = this.byId.get(id);
    if (!c) return { kind: 'unknown' };
    const now = this.now();
    this.settle(c, now, false);
    const rec = c.rec;
    if (rec.state === 'DECIDED') return { kind: 'decided', result: rec.result! };
    rec.state = 'DECIDED';
    rec.result = 'CANCELLED';
    rec.cancelled = true;
    rec.cancelledAt = iso(now);
    rec.decidedAt = iso(now);
    return { kind: 'cancelled' };
  }

  /** Decides every coordination still PENDING (hang, or async not yet due) with `result`, or those of one op occ; returns how many. */
  decidePending(result: 'CONTINUE' | 'ABORT', vnfLcmOpOccId?: string): number {
    const now = this.now();
    let decided = 0;
    for (const c of this.byId.values()) {
      this.settle(c, now, false);
      if (c.rec.state !== 'PENDING' || (vnfLcmOpOccId !== undefined && c.rec.request.vnfLcmOpOccId !== vnfLcmOpOccId)) continue;
      Object.assign(c.rec, { state: 'DECIDED', result, decidedAt: iso(now) });
      decided += 1;
    }
    return decided;
  }

  list(): RecordedCoordination[] {
    const now = this.now();
    return this.all.map((c) => {
      this.settle(c, now, false);
      return snapshot(c.rec);
    });
  }

  /** An async coordination decides after `polls` GETs answered 202 or `delayMs` after it was accepted. */
  private settle(c: Internal, now: number, counting: boolean): void {
    const rec = c.rec;
    const b = rec.behaviour;
    if (rec.state !== 'PENDING' || b.mode !== 'async' || c.acceptedMs === undefined) return;
    const polls = b.polls ?? (b.delayMs === undefined ? 1 : undefined);
    const dueAt = b.delayMs !== undefined ? c.acceptedMs + b.delayMs : undefined;
    let decidedMs: number | undefined;
    if (dueAt !== undefined && now >= dueAt) decidedMs = dueAt;
    // rec.gets already counts the GET being answered: it is answered 200 once `polls` earlier GETs got 202
    else if (counting && polls !== undefined && rec.gets > polls) decidedMs = now;
    if (decidedMs === undefined) return;
    rec.state = 'DECIDED';
    rec.result = b.result;
    rec.decidedAt = iso(decidedMs);
  }

  private lcmCoord(c: Internal): LcmCoord {
    const rec = c.rec;
    const r = rec.request;
    const b = rec.behaviour;
    const out: LcmCoord = {
      id: rec.id,
      coordinationResult: rec.result!,
      vnfInstanceId: r.vnfInstanceId,
      vnfLcmOpOccId: r.vnfLcmOpOccId,
      lcmOperationType: r.lcmOperationType,
      coordinationActionName: r.coordinationActionName,
      _links: { self: { href: Coordinations.url(c.base!, rec.id) }, vnfLcmOpOcc: r._links.vnfLcmOpOcc, vnfInstance: r._links.vnfInstance },
    };
    if (rec.result !== 'CANCELLED' && (b.mode === 'sync' || b.mode === 'async')) {
      if (b.outputParams) out.outputParams = b.outputParams;
      if (b.warnings !== undefined) out.warnings = b.warnings;
    }
    if (rec.result === 'ABORT') {
      out.error = { status: 409, detail: `The EM aborted coordination action ${r.coordinationActionName} of VNF LCM operation occurrence ${r.vnfLcmOpOccId}` };
    }
    return out;
  }
}

function snapshot(rec: RecordedCoordination): RecordedCoordination {
  return structuredClone(rec);
}
