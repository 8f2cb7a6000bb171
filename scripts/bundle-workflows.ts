/**
 * Builds the worker's workflow bundle ahead (npm run bundle [out]): workers
 * started with WORKFLOW_BUNDLE=<out> load it instead of bundling workflows/
 * at every start. One bundle per release is also what the replay suite and
 * docs/versioning.md reason about: the code every worker runs is the same.
 */
import fs from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';

async function main() {
  const out = path.resolve(process.argv[2] ?? 'dist/workflow-bundle.js');
  const { code } = await bundleWorkflowCode({ workflowsPath: require.resolve('../workflows') });
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, code);
  console.log(`workflow bundle: ${out} (${(code.length / 1024).toFixed(0)} KiB)`);
}

main().catch((e) => { console.error(e); process.exit(1); });
