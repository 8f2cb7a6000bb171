/**
 * Layer boundaries, read from the sources' value imports (type-only imports
 * vanish at build): the API does not load the SSH stack or the Mgmt Drivers'
 * implementations to check a request, and activities never load workflow
 * code or the API.
 */
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const IMPORT = /^\s*(?:import|export)\s+(type\s+)?(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]/gm;

/** Project files and packages a module loads at run time, transitively. */
function closure(entry: string): { files: string[]; packages: string[] } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    for (const m of fs.readFileSync(file, 'utf8').matchAll(IMPORT)) {
      if (m[1]) continue; // import type
      if (!m[2].startsWith('.')) { packages.add(m[2].startsWith('@') ? m[2].split('/').slice(0, 2).join('/') : m[2].split('/')[0]); continue; }
      const base = path.resolve(path.dirname(file), m[2]);
      const found = [`${base}.ts`, path.join(base, 'index.ts')].find((f) => fs.existsSync(f));
      if (found) visit(found);
    }
  };
  visit(path.join(ROOT, entry));
  return { files: [...files].map((f) => path.relative(ROOT, f)).sort(), packages: [...packages].sort() };
}

test('the API loads neither the SSH layer nor the drivers that run on it', () => {
  const { files, packages } = closure('api/main.ts');
  expect(files).toContain('api/routes/vnflcm.ts'); // the walker follows the routes
  expect(files).toContain('mgmt/specs.ts'); // ... and sees the driver specs it checks parameters with
  expect(files.filter((f) => /^ssh\/(session|connect|index)\.ts$|^mgmt\/.*driver\.ts$|^mgmt\/registry\.ts$/.test(f))).toEqual([]);
  expect(packages).not.toContain('ssh2');
});

test('activities never load workflow code or the API', () => {
  const { files } = closure('worker/activities.ts');
  expect(files).toContain('ops/vnflcm/change-vnfpkg/activities.ts');
  expect(files.filter((f) => f.startsWith('api/') || f.startsWith('workflow-steps/') || /^ops\/.*\/(workflow|roll-vnfc|rolling-chunk)\.ts$/.test(f))).toEqual([]);
});
