#!/usr/bin/env node
/**
 * npm's postinstall. better-sqlite3 installs through prebuild-install, which downloads a prebuilt binary from
 * GitHub; without a route there, npm ci compiles SQLite from source (about 2.5 min of both cores). After that
 * first compile on a machine, this puts the binary where prebuild-install keeps what it downloads
 * (<npm cache>/_prebuilds, the file named by the download URL: Node's ABI, platform and arch), so the next
 * npm ci on this machine unpacks it in a second. Best effort: it never fails the install.
 */
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

try {
  const pkgDir = path.dirname(require.resolve('better-sqlite3/package.json'));
  const pkg = require(path.join(pkgDir, 'package.json'));
  const util = require('prebuild-install/util');
  const opts = require('prebuild-install/rc')(pkg);
  const cached = util.cachedPrebuild(util.getDownloadUrl({ ...opts, pkg }));
  if (fs.existsSync(cached)) return;
  // only a binary that loads and runs goes into the cache
  const Database = require('better-sqlite3');
  new Database(':memory:').prepare('select 1').get();
  fs.mkdirSync(path.dirname(cached), { recursive: true });
  const tmp = `${cached}.${process.pid}.tmp`;
  execFileSync('tar', ['czf', tmp, '-C', pkgDir, 'build/Release/better_sqlite3.node']);
  fs.renameSync(tmp, cached);
  console.log(`better-sqlite3 ${pkg.version}: its binary cached for the next npm ci on this machine (${cached})`);
} catch (e) {
  console.log(`better-sqlite3's binary not cached (the next npm ci compiles it again): ${e.message}`);
}
