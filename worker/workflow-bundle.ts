/**
 * The worker's workflow bundle: the webpack build of worker/workflows.ts that every
 * worker runs (`npm run bundle [out]` builds it ahead; workers started with
 * WORKFLOW_BUNDLE=<out> load it). One bundle per release is also what the
 * replay suite and docs/versioning.md reason about: the code every worker runs
 * is the same. `npm test` builds one per run and gives it to every worker.
 *
 * A worker given no bundle builds its own in a child process (bundleInChild):
 * webpack's garbage would otherwise stay in the worker's heap for its whole
 * life (idle RSS about 255 MiB instead of 180-240 MiB, docs/benchmarks.md).
 */
import { fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';

/**
 * Workflow interceptors every bundle holds: OpenTelemetry's, which continue the trace a workflow was started
 * in and carry it into its activities (they issue no command: histories replay the same with or without them;
 * with tracing off their spans go to a no-op exporter, worker/main.ts).
 */
export const WORKFLOW_INTERCEPTOR_MODULES = [require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors')];

/** Writes the bundle of worker/workflows.ts to `out`; returns its size in bytes. */
export async function bundleWorkflows(out: string): Promise<number> {
  const { code } = await bundleWorkflowCode({ workflowsPath: require.resolve('./workflows'), workflowInterceptorModules: WORKFLOW_INTERCEPTOR_MODULES, logger: new DefaultLogger('WARN') });
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, code);
  return code.length;
}

/** Builds the bundle in a child process (this very module, run as a script); returns its path and a remover. */
export async function bundleInChild(): Promise<{ codePath: string; remove(): void }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nfv-workflow-bundle-'));
  const codePath = path.join(dir, 'workflow-bundle.js');
  const remove = () => fs.rmSync(dir, { recursive: true, force: true });
  try {
    const child = fork(__filename, [codePath], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', (c, s) => resolve([c, s]));
    });
    if (code !== 0) throw new Error(`bundling the workflows failed (exit ${code ?? signal})`);
    return { codePath, remove };
  } catch (e) {
    remove();
    throw e;
  }
}

if (require.main === module) {
  const out = path.resolve(process.argv[2] ?? 'dist/workflow-bundle.js');
  bundleWorkflows(out)
    .then((bytes) => console.log(`workflow bundle: ${out} (${(bytes / 1024).toFixed(0)} KiB)`))
    .catch((e) => { console.error(e); process.exit(1); });
}
