/**
 * Debian packaging: apt-get/apt, dpkg, apt-key, gpg --dearmor,
 * add-apt-repository, update-ca-certificates. Like the real tools they need
 * root, and `apt-get install` without -y aborts (an exec channel has no
 * terminal to answer the prompt).
 */
import { OS } from '../host/base-image';
import { FsError } from '../host/fs';
import { kubeRepoMinor, kubeVersions, KUBE_PACKAGES } from '../host/kube-packages';
import { candidate, install, locate, remove, resolveInstall } from '../host/packages';
import { getopt, has, isRoot, value, type CommandContext, type CommandTable } from './types';

const LOCK_ERROR =
  'E: Could not open lock file /var/lib/dpkg/lock-frontend - open (13: Permission denied)\n' +
  'E: Unable to acquire the dpkg frontend lock (/var/lib/dpkg/lock-frontend), are you root?\n';


/** The repositories apt knows: sources.list plus sources.list.d/*.list. */
function sources(ctx: CommandContext): string[] {
  const fs = ctx.sh.host.fs;
  const files = ['/etc/apt/sources.list', ...fs.list('/etc/apt/sources.list.d').filter((n) => /\.(list|sources)$/.test(n)).map((n) => `/etc/apt/sources.list.d/${n}`)];
  const lines: string[] = [];
  for (const f of files) {
    const node = fs.get(f);
    if (node?.kind === 'file') lines.push(...node.data.toString('utf8').split('\n').filter((l) => /^\s*deb\s/.test(l)));
  }
  return lines;
}

/** The key a repository is signed with is there: its signed-by keyring, else the global trusted keys. */
function keyAvailable(ctx: CommandContext, line: string): boolean {
  const fs = ctx.sh.host.fs;
  const signedBy = /signed-by=([^\s\]]+)/.exec(line)?.[1];
  if (signedBy) return fs.isFile(signedBy) && (fs.get(signedBy) as { data: Buffer }).data.length > 0;
  return fs.isFile('/etc/apt/trusted.gpg') || fs.list('/etc/apt/trusted.gpg.d').length > 0;
}

function update(ctx: CommandContext): number {
  if (!isRoot(ctx)) {
    ctx.io.stderr.write('Reading package lists... Done\nE: Could not open lock file /var/lib/apt/lists/lock - open (13: Permission denied)\nE: Unable to lock directory /var/lib/apt/lists/\n');
    return 100;
  }
  const read: string[] = [];
  const errors: string[] = [];
  const lines = sources(ctx).map((l, i) => {
    const [, uri, suite] = /deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+(\S+)/.exec(l) ?? [];
    // pkgs.k8s.io is signed with its own key (Release.key, dearmored into the signed-by keyring)
    if (kubeRepoMinor(l) !== undefined && !keyAvailable(ctx, l)) {
      const release = `${uri ?? ''} ${suite === '/' ? '' : suite ?? ''} InRelease`;
      errors.push(`W: GPG error: ${release}: The following signatures couldn't be verified because the public key is not available: NO_PUBKEY 234654DA9A296436`, `E: The repository '${release}' is not signed.`);
      return `Err:${i + 1} ${release}\n  The following signatures couldn't be verified because the public key is not available: NO_PUBKEY 234654DA9A296436`;
    }
    read.push(l);
    return `${kubeRepoMinor(l) !== undefined ? 'Get' : 'Hit'}:${i + 1} ${uri ?? ''} ${suite ?? ''} InRelease`;
  });
  ctx.sh.host.aptLists = read;
  ctx.io.stdout.write(`${lines.join('\n')}\nReading package lists...\n`);
  if (errors.length > 0) {
    ctx.io.stderr.write(`${errors.join('\n')}\nN: Updating from such a repository can't be done securely, and is therefore disabled by default.\n`);
    return 100;
  }
  return 0;
}

function installCmd(ctx: CommandContext, p: ReturnType<typeof getopt>, names: string[]): number {
  const { host } = ctx.sh;
  if (!isRoot(ctx)) {
    ctx.io.stderr.write(LOCK_ERROR);
    return 100;
  }
  const bad = names.find((n) => !/^[a-z0-9][a-z0-9+.-]*(=[\w.:~+-]+)?$/.test(n));
  ctx.io.stdout.write('Reading package lists...\nBuilding dependency tree...\nReading state information...\n');
  if (bad) {
    ctx.io.stderr.write(`E: Unable to locate package ${bad}\n`);
    return 100;
  }
  const missing = names.map((n) => locate(host, n)).filter(Boolean);
  if (missing.length > 0) {
    ctx.io.stderr.write(`${missing.join('\n')}\n`);
    return 100;
  }
  const plan = resolveInstall(host, names);
  const before = (name: string) => host.packages.get(name)?.version;
  const fresh = plan.filter((x) => !before(x.name));
  const upgraded = plan.filter((x) => before(x.name) && compareVersions(x.version, before(x.name)!) > 0);
  const downgraded = plan.filter((x) => before(x.name) && compareVersions(x.version, before(x.name)!) < 0);
  for (const n of names.map((s) => s.split('=')[0]).filter((n) => host.isInstalled(n) && !plan.some((x) => x.name === n))) {
    ctx.io.stdout.write(`${n} is already the newest version (${before(n)}).\n`);
  }
  const heldChanged = plan.filter((x) => host.held.has(x.name) && before(x.name));
  if (heldChanged.length > 0) ctx.io.stdout.write(`The following held packages will be changed:\n  ${heldChanged.map((x) => x.name).join(' ')}\n`);
  if (upgraded.length > 0) ctx.io.stdout.write(`The following packages will be upgraded:\n  ${upgraded.map((x) => x.name).join(' ')}\n`);
  if (downgraded.length > 0) ctx.io.stdout.write(`The following packages will be DOWNGRADED:\n  ${downgraded.map((x) => x.name).join(' ')}\n`);
  if (fresh.length > 0) ctx.io.stdout.write(`The following NEW packages will be installed:\n  ${fresh.map((x) => x.name).join(' ')}\n`);
  ctx.io.stdout.write(`${upgraded.length} upgraded, ${fresh.length} newly installed, ${downgraded.length ? `${downgraded.length} downgraded, ` : ''}0 to remove and 0 not upgraded.\n`);
  if (plan.length === 0) return 0;
  // apt's safety checks for -y: a held package changed, a downgrade
  if (heldChanged.length > 0 && !has(p, 'allow-change-held-packages')) {
    ctx.io.stderr.write('E: Held packages were changed and -y was used without --allow-change-held-packages.\n');
    return 100;
  }
  if (downgraded.length > 0 && !has(p, 'allow-downgrades')) {
    ctx.io.stderr.write('E: Packages were downgraded and -y was used without --allow-downgrades.\n');
    return 100;
  }
  // -qq implies -y.
  const quiet = p.all.filter(([k, v]) => k === 'q' || (k === 'quiet' && v === '2')).length;
  if (!has(p, 'y', 'yes', 'assume-yes') && quiet < 2) {
    // No terminal: apt reads EOF at the prompt and aborts.
    ctx.io.stdout.write('Do you want to continue? [Y/n] Abort.\n');
    return 1;
  }
  for (const x of plan) {
    if (before(x.name)) ctx.io.stdout.write(`Unpacking ${x.name} (${x.version}) over (${before(x.name)}) ...\n`);
  }
  for (const x of plan) ctx.io.stdout.write(`Setting up ${x.name} (${x.version}) ...\n`);
  install(host, plan);
  return 0;
}

/** Debian version order, as far as the simulated mirror's versions need it (numeric runs compared as numbers). */
function compareVersions(a: string, b: string): number {
  const parts = (v: string) => v.split(/[^0-9]+/).filter(Boolean).map(Number);
  const [x, y] = [parts(a), parts(b)];
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    if ((x[i] ?? -1) !== (y[i] ?? -1)) return (x[i] ?? -1) - (y[i] ?? -1);
  }
  return 0;
}

async function aptGet(ctx: CommandContext): Promise<number> {
  const p = getopt(ctx.args, ['o', 't', 'c']);
  if (ctx.name === 'apt') ctx.io.stderr.write('\nWARNING: apt does not have a stable CLI interface. Use with caution in scripts.\n\n');
  const [verb, ...names] = p.operands;
  switch (verb) {
    case 'update':
      return update(ctx);
    case 'install':
      return installCmd(ctx, p, names);
    case 'upgrade': case 'dist-upgrade': case 'full-upgrade': case 'autoremove': case 'clean': case 'autoclean':
      if (!isRoot(ctx)) {
        ctx.io.stderr.write(LOCK_ERROR);
        return 100;
      }
      ctx.io.stdout.write('Reading package lists...\nBuilding dependency tree...\n0 upgraded, 0 newly installed, 0 to remove and 0 not upgraded.\n');
      return 0;
    case 'remove': case 'purge': {
      if (!isRoot(ctx)) {
        ctx.io.stderr.write(LOCK_ERROR);
        return 100;
      }
      const removed = remove(ctx.sh.host, names);
      ctx.io.stdout.write(`Reading package lists...\n0 upgraded, 0 newly installed, ${removed.length} to remove and 0 not upgraded.\n`);
      return 0;
    }
    default:
      ctx.io.stderr.write(`E: Invalid operation ${verb ?? ''}\n`);
      return 100;
  }
}

function dpkg(ctx: CommandContext): number {
  const p = getopt(ctx.args);
  const { host } = ctx.sh;
  if (has(p, 'print-architecture')) {
    ctx.io.stdout.write('amd64\n');
    return 0;
  }
  if (has(p, 'l', 'list')) {
    const pkgs = [...host.packages.values()].filter((x) => p.operands.length === 0 || p.operands.some((o) => new RegExp(`^${o.replace(/\*/g, '.*')}$`).test(x.name)));
    if (pkgs.length === 0) {
      ctx.io.stderr.write(`dpkg-query: no packages found matching ${p.operands.join(' ')}\n`);
      return 1;
    }
    ctx.io.stdout.write('Desired=Unknown/Install/Remove/Purge/Hold\n||/ Name           Version      Architecture Description\n+++-==============-============-============-=================================\n');
    for (const x of pkgs) ctx.io.stdout.write(`ii  ${x.name.padEnd(14)} ${x.version.padEnd(12)} amd64        ${x.name}\n`);
    return 0;
  }
  if (has(p, 's', 'status')) {
    const x = host.packages.get(p.operands[0] ?? '');
    if (!x) {
      ctx.io.stderr.write(`dpkg-query: package '${p.operands[0] ?? ''}' is not installed and no information is available\n`);
      return 1;
    }
    ctx.io.stdout.write(`Package: ${x.name}\nStatus: install ok installed\nVersion: ${x.version}\n`);
    return 0;
  }
  ctx.io.stderr.write('dpkg: error: need an action option\n');
  return 2;
}

export const APT_COMMANDS: CommandTable = {
  'apt-get': { run: aptGet },
  apt: { run: aptGet },
  dpkg: { run: dpkg },
  'dpkg-query': { run: (ctx) => dpkg({ ...ctx, args: ctx.args.map((a) => (a === '-W' ? '-l' : a)) }) },
  'apt-cache': {
    run(ctx) {
      const [verb, ...names] = ctx.args;
      const { host } = ctx.sh;
      if (verb === 'madison') {
        for (const name of names) {
          if (!KUBE_PACKAGES.has(name)) ctx.io.stdout.write(`${name.padStart(10)} | ${candidate(host, name)} | http://archive.ubuntu.com/ubuntu ${OS.codename}/main amd64 Packages\n`);
          const repo = host.aptLists.find((l) => kubeRepoMinor(l) !== undefined);
          for (const v of KUBE_PACKAGES.has(name) ? kubeVersions(host, name) : []) ctx.io.stdout.write(`${name.padStart(10)} | ${v} | ${/https?:\/\/\S+/.exec(repo ?? '')?.[0] ?? ''}  Packages\n`);
        }
        return 0;
      }
      if (verb !== 'policy' || names.length === 0) return 0;
      for (const name of names) {
        const installed = host.packages.get(name)?.version ?? '(none)';
        const cand = KUBE_PACKAGES.has(name) ? kubeVersions(host, name)[0] ?? '(none)' : candidate(host, name) ?? installed;
        ctx.io.stdout.write(`${name}:\n  Installed: ${installed}\n  Candidate: ${host.isInstalled(name) && !KUBE_PACKAGES.has(name) ? installed : cand}\n`);
      }
      return 0;
    },
  },
  'apt-mark': {
    run(ctx) {
      const [verb, ...names] = getopt(ctx.args).operands;
      const { host } = ctx.sh;
      if (verb === 'showhold') {
        ctx.io.stdout.write([...host.held].sort().map((n) => `${n}\n`).join(''));
        return 0;
      }
      if (verb !== 'hold' && verb !== 'unhold') {
        ctx.io.stderr.write(`E: Invalid operation ${verb ?? ''}\n`);
        return 100;
      }
      if (!isRoot(ctx)) {
        ctx.io.stderr.write('E: Could not create temporary file for /var/lib/apt/extended_states - mkstemp (13: Permission denied)\nE: Failed to write temporary StateFile /var/lib/apt/extended_states\n');
        return 100;
      }
      for (const name of names) {
        if (!host.isInstalled(name) && locate(host, name)) {
          ctx.io.stderr.write(`E: Unable to locate package ${name}\n`);
          return 100;
        }
        if (verb === 'hold') {
          ctx.io.stdout.write(host.held.has(name) ? `${name} was already set on hold.\n` : `${name} set on hold.\n`);
          host.held.add(name);
        } else {
          ctx.io.stdout.write(host.held.delete(name) ? `Canceled hold on ${name}.\n` : `${name} was already not on hold.\n`);
        }
      }
      return 0;
    },
  },
  'apt-key': {
    async run(ctx) {
      const [verb, file] = ctx.args;
      if (verb === 'fingerprint' || verb === 'list') {
        ctx.io.stdout.write('pub   rsa4096 2017-02-22 [SCEA]\n      9DC8 5822 9FC7 DD38 854A  E2D8 8D81 803C 0EBF CD88\nuid           [ unknown] Docker Release (CE deb) <docker@docker.com>\n');
        return 0;
      }
      if (!isRoot(ctx)) {
        ctx.io.stderr.write('ERROR: This command can only be used by root.\n');
        return 1;
      }
      if (verb !== 'add') {
        ctx.io.stderr.write(`ERROR: unknown command ${verb ?? ''}\n`);
        return 1;
      }
      const key = file === '-' || file === undefined ? await ctx.io.stdin.readAll() : ctx.sh.host.fs.readFile(ctx.sh.resolve(file), ctx.sh.who);
      if (!key.toString('utf8').includes('BEGIN PGP PUBLIC KEY BLOCK')) {
        ctx.io.stderr.write('gpg: no valid OpenPGP data found.\n');
        return 2;
      }
      ctx.sh.host.fs.writeFile('/etc/apt/trusted.gpg', key, ctx.sh.who, { append: true });
      ctx.io.stdout.write('OK\n');
      return 0;
    },
  },
  gpg: {
    async run(ctx) {
      const p = getopt(ctx.args, ['o', 'output', 'homedir', 'keyserver', 'recv-keys']);
      if (!has(p, 'dearmor')) return 0;
      const input = p.operands[0] ? ctx.sh.host.fs.readFile(ctx.sh.resolve(p.operands[0]), ctx.sh.who) : await ctx.io.stdin.readAll();
      const armored = input.toString('utf8');
      if (!armored.includes('BEGIN PGP')) {
        ctx.io.stderr.write('gpg: no valid OpenPGP data found.\n');
        return 2;
      }
      const body = Buffer.from(armored.split('\n').filter((l) => /^[A-Za-z0-9+/=]+$/.test(l) && !l.startsWith('=')).join(''), 'base64');
      const output = value(p, 'o', 'output');
      if (!output || output === '-') ctx.io.stdout.write(body);
      else {
        const path = ctx.sh.resolve(output);
        if (ctx.sh.host.fs.isFile(path) && !has(p, 'yes')) {
          ctx.io.stderr.write(`File '${output}' exists. Overwrite? (y/N) gpg: signal Hangup caught ... exiting\n`);
          return 2;
        }
        try {
          ctx.sh.host.fs.writeFile(path, body, ctx.sh.who);
        } catch (err) {
          if (!(err instanceof FsError)) throw err;
          ctx.io.stderr.write(`gpg: can't create '${output}': ${err.message}\ngpg: dearmoring failed: ${err.message}\n`);
          return 2;
        }
      }
      return 0;
    },
  },
  'add-apt-repository': {
    run(ctx) {
      const p = getopt(ctx.args);
      if (!isRoot(ctx)) {
        ctx.io.stderr.write('Error: must run as root\n');
        return 1;
      }
      const line = p.operands.join(' ');
      if (!line) {
        ctx.io.stderr.write('Error: need a repository as argument\n');
        return 1;
      }
      if (line.startsWith('deb ')) {
        const [, uri] = /deb\s+(?:\[[^\]]*\]\s+)?(\S+)/.exec(line) ?? [];
        const name = `archive_uri-${(uri ?? 'repo').replace(/^https?:\/\//, 'https_').replace(/[^A-Za-z0-9]+/g, '_')}-${OS.codename}.list`;
        ctx.sh.host.fs.writeFile(`/etc/apt/sources.list.d/${name}`, `${line}\n`, ctx.sh.who);
      }
      return update(ctx);
    },
  },
  'update-ca-certificates': {
    run(ctx) {
      if (!isRoot(ctx)) {
        ctx.io.stderr.write('ln: failed to create symbolic link: Permission denied\n');
        return 1;
      }
      const added = ctx.sh.host.fs.list('/usr/local/share/ca-certificates').filter((n) => n.endsWith('.crt')).length;
      ctx.io.stdout.write(`Updating certificates in /etc/ssl/certs...\n${added} added, 0 removed; done.\nRunning hooks in /etc/ca-certificates/update.d...\ndone.\n`);
      return 0;
    },
  },
};
