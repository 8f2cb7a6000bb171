/**
 * What the worker puts in a package script's job besides the script and its
 * stdin: its limits, and where it may connect (mgmt/script-jail.ts): the
 * addresses of its own instance's VNFCs (fixed IPs recorded in
 * instantiatedVnfInfo, and an address the job itself is about) on
 * SCRIPTS_VNFC_PORTS, and the operator's SCRIPTS_ALLOW. Nothing else.
 */
import net from 'node:net';
import type { Config } from '../common/config';
import type { Endpoint } from '../common/endpoints';
import type { CpProtocolInfo, InstantiatedVnfInfo } from '../model/instantiated-vnf-info';
import type { ScriptLimits } from './script-channel';

type ScriptSettings = Pick<Config, 'scriptsMemoryBytes' | 'scriptsOutputBytes' | 'scriptsCpuSeconds' | 'scriptsFileBytes' | 'scriptsTmpBytes' | 'scriptsVnfcPorts' | 'scriptsAllow'>;

export function scriptLimits(cfg: ScriptSettings, timeoutMs: number): ScriptLimits {
  return {
    timeoutMs, memoryBytes: cfg.scriptsMemoryBytes, outputBytes: cfg.scriptsOutputBytes,
    cpuSeconds: cfg.scriptsCpuSeconds, fileBytes: cfg.scriptsFileBytes, tmpBytes: cfg.scriptsTmpBytes,
  };
}

const addressesOf = (cps: { cpProtocolInfo?: CpProtocolInfo[] }[] = []) =>
  cps.flatMap((cp) => cp.cpProtocolInfo ?? []).flatMap((p) => p.ipOverEthernet?.ipAddresses ?? []).flatMap((a) => a.addresses ?? []);

/** The instance's VNFC and external CP addresses, and `extra`, on the VNFC ports; then the operator's endpoints. */
export function scriptReach(cfg: ScriptSettings, info: Partial<Pick<InstantiatedVnfInfo, 'vnfcResourceInfo' | 'extCpInfo'>> | null | undefined, extra: (string | undefined)[] = []): Endpoint[] {
  const addresses = new Set([
    ...(info?.vnfcResourceInfo ?? []).flatMap((v) => addressesOf(v.vnfcCpInfo)),
    ...addressesOf(info?.extCpInfo),
    ...extra.filter((a): a is string => !!a),
  ].filter((a) => net.isIP(a) !== 0));
  const out = [...addresses].flatMap((host) => cfg.scriptsVnfcPorts.map((port) => ({ host, port })));
  for (const e of cfg.scriptsAllow) if (!out.some((o) => o.host === e.host && o.port === e.port)) out.push(e);
  return out;
}
