/**
 * The worker's bundle exports every registered operation's workflow under
 * its workflow type. The bundle cannot import ops/registry.ts (its modules
 * read the store), so this script writes worker/operation-workflows.ts from
 * it: for each operation folder under ops/vnflcm/ and ops/magnum/ whose
 * module (index.ts) is in the registry, one export of its workflow.ts. A unit
 * test (test/unit/ops-registry.test.ts) fails when the file differs from what
 * this script writes, so adding an operation is its folder and its registry
 * line, then `npm run ops:workflows`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { MAGNUM_CLUSTER_OPERATIONS, VNF_LCM_OPERATIONS } from '../ops/registry';

const ROOT = path.resolve(__dirname, '..');
export const OPERATION_WORKFLOWS_FILE = path.join(ROOT, 'worker', 'operation-workflows.ts');
const APIS = ['vnflcm', 'magnum'];

/** The source of worker/operation-workflows.ts, in the registry's order. */
export function operationWorkflowsSource(): string {
  const registered: { workflowType: string }[] = [...Object.values(VNF_LCM_OPERATIONS), ...Object.values(MAGNUM_CLUSTER_OPERATIONS)];
  const folderOf = new Map<object, string>();
  for (const api of APIS) {
    for (const dir of fs.readdirSync(path.join(ROOT, 'ops', api)).sort()) {
      const folder = `ops/${api}/${dir}`;
      if (!fs.existsSync(path.join(ROOT, folder, 'index.ts'))) continue;
      for (const value of Object.values(require(path.join(ROOT, folder)) as Record<string, unknown>)) {
        if (registered.includes(value as never)) folderOf.set(value as object, folder);
      }
    }
  }
  const lines = registered.map((op) => {
    const folder = folderOf.get(op);
    if (!folder) throw new Error(`operation ${op.workflowType}: its module is not the index.ts of a folder under ops/${APIS.join('/ or ops/')}/`);
    if (typeof (require(path.join(ROOT, folder, 'workflow')) as Record<string, unknown>)[op.workflowType] !== 'function') {
      throw new Error(`${folder}/workflow.ts exports no workflow ${op.workflowType}`);
    }
    return `export { ${op.workflowType} } from '../${folder}/workflow';`;
  });
  return [
    '/**',
    ' * GENERATED from ops/registry.ts by scripts/generate-operation-workflows.ts: do not edit;',
    ' * run `npm run ops:workflows`. Every registered operation\'s workflow under its workflow',
    ' * type; worker/workflows.ts (the bundle\'s entry) exports them.',
    ' */',
    ...lines,
    '',
  ].join('\n');
}

if (require.main === module) {
  const source = operationWorkflowsSource();
  if (!fs.existsSync(OPERATION_WORKFLOWS_FILE) || fs.readFileSync(OPERATION_WORKFLOWS_FILE, 'utf8') !== source) {
    fs.writeFileSync(OPERATION_WORKFLOWS_FILE, source);
    console.log(`wrote ${path.relative(process.cwd(), OPERATION_WORKFLOWS_FILE)}`);
  }
}
