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
  for (const dir of ['node_modules', '.tools']) if (fs.existsSync(path.join(ROOT, dir))) fs.symlinkSync(path.join(ROOT, dir), path.join(out, dir));
  return compiled;
}

if (require.main === module) {
  const out = path.resolve(process.argv[2] ?? 'dist/tree');
  console.log(`compiled ${compileTree(out)} files into ${out}`);
}
