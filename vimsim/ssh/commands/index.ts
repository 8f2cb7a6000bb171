/** Every program the simulated hosts know, by name. Anything else is "command not found" (127). */
import { APT_COMMANDS } from './apt';
import { CURL_COMMANDS } from './curl';
import { DOCKER_COMMANDS } from './docker';
import { ETCDCTL_COMMANDS } from './etcdctl';
import { FILE_COMMANDS } from './files';
import { KERNEL_COMMANDS } from './kernel';
import { CRICTL_COMMANDS } from './crictl';
import { KUBEADM_COMMANDS } from './kubeadm';
import { KUBECTL_COMMANDS } from './kubectl';
import { SHELL_COMMANDS } from './shells';
import { SYSTEM_COMMANDS } from './system';
import { SYSTEMCTL_COMMANDS } from './systemctl';
import { TEXT_COMMANDS } from './text';
import type { CommandTable } from './types';

export type { CommandSpec, CommandContext } from './types';

export const COMMANDS: CommandTable = {
  ...FILE_COMMANDS,
  ...TEXT_COMMANDS,
  ...SYSTEM_COMMANDS,
  ...KERNEL_COMMANDS,
  ...SHELL_COMMANDS,
  ...APT_COMMANDS,
  ...SYSTEMCTL_COMMANDS,
  ...CURL_COMMANDS,
  ...DOCKER_COMMANDS,
  ...KUBEADM_COMMANDS,
  ...KUBECTL_COMMANDS,
  ...CRICTL_COMMANDS,
  ...ETCDCTL_COMMANDS,
};

const BIN_DIRS = ['/bin', '/sbin', '/usr/bin', '/usr/sbin', '/usr/local/bin', '/usr/local/sbin'];

/** /usr/bin/docker and friends name the built-in programs. */
export function isStandardBinPath(p: string): boolean {
  const dir = p.slice(0, p.lastIndexOf('/')) || '/';
  return BIN_DIRS.includes(dir);
}
