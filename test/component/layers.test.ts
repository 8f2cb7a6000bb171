/**
 * The layering rule of .dependency-cruiser.cjs: imports point down, no
 * circles, the simulator apart, lib/ named by its package. The tree has no violation at all; and the
 * rule itself catches an upward import and a circle (checked on a small tree
 * of its own, so that a config that matches nothing cannot pass).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const DEPCRUISE = path.join(ROOT, 'node_modules', '.bin', 'depcruise');
const CONFIG = path.join(ROOT, '.dependency-cruiser.cjs');

function depcruise(cwd: string, args: string[]): { status: number | null; out: string } {
  const r = spawnSync(DEPCRUISE, ['--config', CONFIG, '--output-type', 'err', ...args], { cwd, encoding: 'utf8', timeout: 90_000 });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

test('the tree has no upward import, circle or simulator import', () => {
  const r = depcruise(ROOT, ['.']);
  if (r.status !== 0) throw new Error(`layering violations:\n${r.out}`);
  expect(r.out).toMatch(/no dependency violations found \(\d{3,} modules/);
});

test('the rule catches an upward import, a circle and a product import in the simulator', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'layers-'));
  try {
    const write = (file: string, text: string) => {
      fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      fs.writeFileSync(path.join(dir, file), text);
    };
    write('tsconfig.json', JSON.stringify({ compilerOptions: { module: 'commonjs', moduleResolution: 'node', strict: true } }));
    write('api/route.ts', "import { setting } from '../common/config';\nexport const route = setting;\n");
    write('common/config.ts', "import type { route } from '../api/route';\nexport const setting = 1;\nexport type R = typeof route;\n");
    write('infra/a.ts', "import { b } from './b';\nexport const a = b;\n");
    write('infra/b.ts', "import type { a } from './a';\nexport const b = 2;\nexport type A = typeof a;\n");
    // lib/ is the workspace package @nfv-orchestrator/lib, as npm links it
    write('package.json', JSON.stringify({ name: 'root', workspaces: ['lib', 'vimsim'], dependencies: { '@nfv-orchestrator/lib': '0.1.0' } }));
    write('lib/package.json', JSON.stringify({ name: '@nfv-orchestrator/lib', version: '0.1.0' }));
    write('vimsim/package.json', JSON.stringify({ name: '@nfv-orchestrator/vimsim', dependencies: { '@nfv-orchestrator/lib': '0.1.0' } }));
    fs.mkdirSync(path.join(dir, 'node_modules/@nfv-orchestrator'), { recursive: true });
    fs.symlinkSync('../../lib', path.join(dir, 'node_modules/@nfv-orchestrator/lib'));
    write('vimsim/x.ts', "import { setting } from '../common/config';\nimport { h } from '@nfv-orchestrator/lib/h';\nexport const x = setting + h;\n");
    write('vimsim/y.ts', "import { h } from '../lib/h';\nexport const y = h;\n");
    write('lib/h.ts', 'export const h = 3;\n');
    write('lib/up.ts', "import { setting } from '../common/config';\nexport const up = setting;\n");
    const r = depcruise(dir, ['api', 'common', 'infra', 'vimsim', 'lib']);
    expect(r.status).not.toBe(0);
    expect(r.out).toMatch(/no-upward-from-common: common\/config\.ts → api\/route\.ts/);
    expect(r.out).toMatch(/no-circular: infra\/(a|b)\.ts →/);
    expect(r.out).toMatch(/simulator-self-contained: vimsim\/x\.ts → common\/config\.ts/);
    // lib/ is below everything: the simulator may use it by its package name, and it may use nothing of the product
    expect(r.out).not.toMatch(/vimsim\/x\.ts → lib\/h\.ts/);
    expect(r.out).toMatch(/lib-by-package-name: vimsim\/y\.ts → lib\/h\.ts/);
    expect(r.out).toMatch(/no-upward-from-libraries: lib\/up\.ts → common\/config\.ts/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
