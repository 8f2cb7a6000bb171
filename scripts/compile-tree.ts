/**
 * Compiles the product's TypeScript once into a tree beside nothing else
 * (npm test does, per run): every .ts git knows of or would add (tracked, or
 * new and not ignored) becomes .js (swc, as jest transforms it), every other
 * such file and node_modules/.tools are
 * symlinks to the checkout, so paths relative to a module (__dirname: the
 * migrations, Keystone's and Heat's Python files, .tools) resolve as in the
 * source tree. Components started with COMPILED_TREE=<dir>
 * (runtime/processes.ts) run from it with plain node: no tsx transform and
 * cache lookup per start, and less memory.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { transformFileSync } from '@swc/core';

const ROOT = path.resolve(__dirname, '..');

/** Writes the compiled tree to `out` (made anew); returns how many files were compiled. */
export function compileTree(out: string): number {
  fs.rmSync(out, { recursive: true, force: true });
  const tracked = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 }).toString().split('\0').filter(Boolean);
  let compiled = 0;
  for (const file of tracked) {
    const src = path.join(ROOT, file);
    if (!fs.existsSync(src)) continue; // deleted in the work tree
    const dest = path.join(out, file.replace(/\.ts$/, '.js'));
    fs.mkdirSync(path.dirname(dest), { recursive: true });
    if (file.endsWith('.ts') && !file.endsWith('.d.ts')) {
      const { code } = transformFileSync(src, { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' }, sourceMaps: 'inline', swcrc: false });
      fs.writeFileSync(dest, code);
      compiled++;
    } else {
      fs.symlinkSync(src, dest);
    }
  }
  if (fs.existsSync(path.join(ROOT, '.tools'))) fs.symlinkSync(path.join(ROOT, '.tools'), path.join(out, '.tools'));
  linkNodeModules(out);
  return compiled;
}

/**
 * out/node_modules: a link to each of the checkout's packages, except that
 * the workspace packages (lib, vimsim: npm links them into node_modules) point
 * at their compiled folders in `out`, so `@nfv-orchestrator/lib/env` is
 * compiled JavaScript there too.
 */
function linkNodeModules(out: string): void {
  const modules = path.join(ROOT, 'node_modules');
  if (!fs.existsSync(modules)) return;
  const workspaces = new Map<string, string>(
    (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).workspaces as string[] ?? [])
      .map((dir) => [JSON.parse(fs.readFileSync(path.join(ROOT, dir, 'package.json'), 'utf8')).name as string, dir]),
  );
  const link = (name: string) => {
    const dest = path.join(out, 'node_modules', name);
    fs.mkdirSync(path.dirname(dest), { recursive: true });
    const workspace = workspaces.get(name);
    fs.symlinkSync(workspace ? path.join(out, workspace) : path.join(modules, name), dest);
  };
  for (const entry of fs.readdirSync(modules)) {
    if (!entry.startsWith('@')) { link(entry); continue; }
    for (const scoped of fs.readdirSync(path.join(modules, entry))) link(`${entry}/${scoped}`);
  }
}

if (require.main === module) {
  const out = path.resolve(process.argv[2] ?? 'dist/tree');
  console.log(`compiled ${compileTree(out)} files into ${out}`);
}
