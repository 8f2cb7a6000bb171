/**
 * The package pair of the rolling-update benchmark: samples/two_vdu_vnf as
 * v1.0 and v2.0 (as in test/disruptive/change-vnfpkg.test.ts: new vnfdId, version, VDU
 * image), with VDU1 able to reach `n` VNFCs through an added instantiation
 * level `bench_level` (VDU1 n, VDU2 1; VDU1_scale at level n-1), and the
 * internal network's subnet widened to a /16 (VNFD and BaseHOT).
 */
import path from 'node:path';
import { sampleVariant, twoVduVnfV2 } from '../samples/variant';

const SAMPLE = path.resolve(__dirname, '../samples/two_vdu_vnf');
const DF = 'Definitions/two_vdu_vnf_df_simple.yaml';
export const BENCH_LEVEL = 'bench_level';

/** Replaces `from` (which must occur exactly once) in `text`. */
function replaceOnce(text: string, from: string, to: string): string {
  const parts = text.split(from);
  if (parts.length !== 2) throw new Error(`${DF}: expected "${from.trim()}" once, found ${parts.length - 1}`);
  return parts.join(to);
}

/** The flavour with VDU1 up to n instances and the bench_level instantiation level. */
function scaleFlavour(df: string, n: number): string {
  let t = replaceOnce(df, 'max_number_of_instances: 3', `max_number_of_instances: ${n}`);
  t = replaceOnce(t, 'max_scale_level: 2', `max_scale_level: ${Math.max(2, n - 1)}`);
  t = replaceOnce(t, '          default_level: instantiation_level_1',
    `            ${BENCH_LEVEL}:\n              description: Benchmark size\n              scale_info:\n                VDU1_scale:\n                  scale_level: ${n - 1}\n          default_level: instantiation_level_1`);
  t = replaceOnce(t, '              number_of_instances: 3\n        targets: [ VDU1 ]',
    `              number_of_instances: 3\n            ${BENCH_LEVEL}:\n              number_of_instances: ${n}\n        targets: [ VDU1 ]`);
  return replaceOnce(t, '              number_of_instances: 1\n        targets: [ VDU2 ]',
    `              number_of_instances: 1\n            ${BENCH_LEVEL}:\n              number_of_instances: 1\n        targets: [ VDU2 ]`);
}

/** One package of the pair (zip and vnfdId) for up to n VDU1 VNFCs. */
export function benchPackage(version: '1.0' | '2.0', n: number): { zip: Buffer; vnfdId: string } {
  return sampleVariant(SAMPLE, {
    editYaml: (p, text) => {
      let t = p === DF ? scaleFlavour(text, n) : text;
      t = t.split('cidr: 192.168.10.0/24').join('cidr: 10.10.0.0/16'); // the internal VL: a /24 has room for ~250 ports
      return version === '2.0' ? twoVduVnfV2(t) : t;
    },
  });
}
