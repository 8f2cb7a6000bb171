/** A host's first boot and its boots after a power-off: the kernel, then systemd's units. */
import { SimHost, type HostHooks } from './host';
import type { AccountSpec } from './accounts';
import { bootKernel } from './kernel';
import { daemonReload, startService } from './services';

/** A fresh host for a new server: its image, accounts and base packages, booted. */
export function bootHost(serverId: string, address: string, hostname: string, accounts: AccountSpec[], hooks: HostHooks): SimHost {
  const host = new SimHost(serverId, address, hostname, accounts, hooks);
  daemonReload(host);
  bootKernel(host);
  return host;
}

/** A boot after a power-off: the kernel starts afresh, enabled Kubernetes and load-balancing units start. */
export function rebootHost(host: SimHost): void {
  bootKernel(host);
  for (const unit of ['containerd', 'kubelet']) {
    const svc = host.services.get(unit);
    if (svc) svc.active = svc.enabled;
  }
  // haproxy and keepalived start for real (their configs are read again; a bad one leaves the unit failed)
  host.lb?.powerOn();
  for (const unit of ['haproxy', 'keepalived']) {
    const svc = host.services.get(unit);
    if (!svc) continue;
    Object.assign(svc, { active: false, failed: false });
    if (svc.enabled) startService(host, unit);
  }
}
