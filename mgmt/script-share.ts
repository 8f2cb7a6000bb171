/**
 * Each project's share of the scripts worker: at most `perProject` of its
 * jobs run at once; the rest wait their turn here (heartbeating, cancellable)
 * in the order they came, while other projects' jobs start at once. The
 * worker's activity slots (SCRIPTS_SLOTS) are many more than a project can
 * have open operations (QUOTA_INSTANCES, one open operation per instance), so
 * one project's sleeping hooks cannot hold every slot either. Security
 * review 3, M-4.
 */
export class ProjectShare {
  private readonly running = new Map<string, number>();
  private readonly waiting = new Map<string, (() => void)[]>();

  constructor(readonly perProject: number) {}

  /** Resolves with the release function once the project has room; rejects when `signal` aborts first. */
  async acquire(project: string, o: { signal?: AbortSignal; onTick?: () => void } = {}): Promise<() => void> {
    if ((this.running.get(project) ?? 0) >= this.perProject) {
      const tick = setInterval(() => o.onTick?.(), 5000);
      try {
        await new Promise<void>((resolve, reject) => {
          const queue = this.waiting.get(project) ?? [];
          this.waiting.set(project, queue);
          const go = () => { o.signal?.removeEventListener('abort', abort); resolve(); };
          const abort = () => {
            const i = queue.indexOf(go);
            if (i >= 0) queue.splice(i, 1);
            reject(o.signal?.reason instanceof Error ? o.signal.reason : new Error('cancelled while waiting for its project\'s turn'));
          };
          queue.push(go);
          if (o.signal?.aborted) abort(); else o.signal?.addEventListener('abort', abort);
        });
      } finally {
        clearInterval(tick);
      }
    } else {
      this.running.set(project, (this.running.get(project) ?? 0) + 1);
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.get(project)?.shift();
      if (next) return next(); // the slot passes on: the count stays
      const n = (this.running.get(project) ?? 1) - 1;
      if (n > 0) this.running.set(project, n); else this.running.delete(project);
      if (!this.waiting.get(project)?.length) this.waiting.delete(project);
    };
  }

  /** Jobs running for a project now. */
  runningFor(project: string): number {
    return this.running.get(project) ?? 0;
  }
}
