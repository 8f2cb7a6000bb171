/**
 * What a fresh server looks like before the product touches it: an Ubuntu
 * 20.04 cloud image (directories, a few /etc files, base packages, services).
 */
import type { Account } from './accounts';
import type { MemFs } from './fs';

export const OS = { id: 'ubuntu', version: '20.04', codename: 'focal', pretty: 'Ubuntu 20.04.6 LTS', kernel: '5.4.0-169-generic' };

const ROOT_WHO = { name: 'root', uid: 0, home: '/root' };

const DIRS = [
  '/bin', '/sbin', '/boot', '/dev', '/dev/shm', '/etc', '/etc/apt', '/etc/apt/apt.conf.d', '/etc/apt/preferences.d',
  '/etc/apt/sources.list.d', '/etc/apt/trusted.gpg.d', '/etc/cloud', '/etc/default', '/etc/ssh', '/etc/ssl', '/etc/ssl/certs',
  '/etc/systemd', '/etc/systemd/system', '/etc/sudoers.d', '/etc/sysctl.d', '/etc/modules-load.d', '/home', '/lib', '/media', '/mnt', '/opt', '/proc', '/root', '/run',
  '/srv', '/sys', '/tmp', '/usr', '/usr/bin', '/usr/lib', '/usr/local', '/usr/local/bin', '/usr/local/share',
  '/usr/local/share/ca-certificates', '/usr/sbin', '/usr/share', '/usr/share/keyrings', '/var', '/var/cache', '/var/lib',
  '/var/lib/apt', '/var/lib/dpkg', '/var/log', '/var/tmp',
];

/** Packages of the image (not listed in the admin view: only what apt installed later is). */
export const BASE_PACKAGES: Record<string, string> = {
  bash: '5.0-6ubuntu1.2',
  'ca-certificates': '20230311ubuntu0.20.04.1',
  coreutils: '8.30-3ubuntu2',
  curl: '7.68.0-1ubuntu2.21',
  gnupg: '2.2.19-3ubuntu2.2',
  'lsb-release': '11.1.0ubuntu2',
  'openssh-server': '1:8.2p1-4ubuntu0.9',
  python3: '3.8.2-0ubuntu2',
  'software-properties-common': '0.99.9.12',
  sudo: '1.8.31-1ubuntu1.5',
  systemd: '245.4-4ubuntu3.22',
  'cloud-init': '23.3.3-0ubuntu0~20.04.1',
};

export const BASE_SERVICES = ['ssh', 'cron', 'systemd-journald', 'systemd-resolved', 'rsyslog'];

export function populateImage(fs: MemFs, hostname: string, address: string, accounts: Account[]): void {
  for (const dir of DIRS) fs.mkdir(dir, ROOT_WHO, { parents: true, origin: 'image', mode: dir === '/tmp' ? 0o1777 : dir === '/root' ? 0o700 : 0o755 });
  const file = (p: string, text: string, mode = 0o644) => fs.writeFile(p, text, ROOT_WHO, { origin: 'image', mode });
  file(
    '/etc/os-release',
    [
      'NAME="Ubuntu"', `VERSION="${OS.version}.6 LTS (Focal Fossa)"`, `ID=${OS.id}`, 'ID_LIKE=debian', `PRETTY_NAME="${OS.pretty}"`,
      `VERSION_ID="${OS.version}"`, `VERSION_CODENAME=${OS.codename}`, `UBUNTU_CODENAME=${OS.codename}`, '',
    ].join('\n'),
  );
  file('/etc/lsb-release', `DISTRIB_ID=Ubuntu\nDISTRIB_RELEASE=${OS.version}\nDISTRIB_CODENAME=${OS.codename}\nDISTRIB_DESCRIPTION="${OS.pretty}"\n`);
  file('/etc/hostname', `${hostname}\n`);
  file('/etc/hosts', `127.0.0.1 localhost\n${address} ${hostname}\n\n::1 ip6-localhost ip6-loopback\n`);
  file('/etc/apt/sources.list', `deb http://archive.ubuntu.com/ubuntu ${OS.codename} main restricted universe multiverse\ndeb http://archive.ubuntu.com/ubuntu ${OS.codename}-updates main restricted universe multiverse\n`);
  file('/etc/shadow', '', 0o640);
  // a swap file, as a server install has: kubeadm's preflight warns and the kubelet refuses to start until `swapoff -a`
  file('/etc/fstab', 'LABEL=cloudimg-rootfs\t/\t ext4\tdefaults\t0 1\n/swap.img\tnone\tswap\tsw\t0\t0\n');
  file('/swap.img', '', 0o600);
  file('/etc/sudoers', 'root ALL=(ALL:ALL) ALL\n%sudo ALL=(ALL:ALL) ALL\n#includedir /etc/sudoers.d\n', 0o440);
  for (const account of accounts) {
    if (account.uid === 0) continue;
    fs.mkdir(account.home, ROOT_WHO, { parents: true, origin: 'image' });
    fs.chown(account.home, account.name, ROOT_WHO);
    file(`${account.home}/.bashrc`, '# ~/.bashrc\n');
    fs.chown(`${account.home}/.bashrc`, account.name, ROOT_WHO);
  }
}
