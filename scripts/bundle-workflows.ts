/**
 * Builds the worker's workflow bundle ahead (npm run bundle [out]): workers
 * started with WORKFLOW_BUNDLE=<out> load it instead of bundling workflows/
 * at every start. One bundle per release is also what the replay suite and
 * docs/versioning.md reason about: the code every worker runs is the same.
 * `npm test` builds one per run and gives it to every worker it starts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';

/** Writes the bundle of workflows/ to `out`; returns its size in bytes. */
export async function bundleWorkflows(out: string): Promise<number> {
  const { code } = await bundleWorkflowCode({ workflowsPath: require.resolve('../workflows'), logger: new DefaultLogger('WARN') });
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, code);
  return code.length;
}

if (require.main === module) {
  const out = path.resolve(process.argv[2] ?? 'dist/workflow-bundle.js');
  bundleWorkflows(out)
    .then((bytes) => console.log(`workflow bundle: ${out} (${(bytes / 1024).toFixed(0)} KiB)`))
    .catch((e) => { console.error(e); process.exit(1); });
}
