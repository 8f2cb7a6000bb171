/**
 * The simulated host's filesystem: a flat map of absolute paths to files and
 * directories, in memory only. Permissions are deliberately simple but real
 * enough to catch the classic mistakes: a normal user can write only in its
 * home and /tmp, so `sudo echo x > /etc/f` fails and `| sudo tee` works.
 */
import { createHash } from 'node:crypto';
import path from 'node:path/posix';

/** Who put a file there: the base image, a package install, or the product (shell or SFTP). */
export type Origin = 'image' | 'package' | 'user';

interface NodeBase {
  mode: number;
  owner: string;
  mtime: number;
  origin: Origin;
}
export interface FileNode extends NodeBase {
  kind: 'file';
  data: Buffer;
  via?: 'sftp' | 'shell';
}
export interface DirNode extends NodeBase {
  kind: 'dir';
}
export type FsNode = FileNode | DirNode;

/** The user a filesystem call acts for. */
export interface Who {
  name: string;
  uid: number;
  home: string;
}

const MESSAGES = {
  ENOENT: 'No such file or directory',
  EEXIST: 'File exists',
  ENOTDIR: 'Not a directory',
  EISDIR: 'Is a directory',
  EACCES: 'Permission denied',
  ENOTEMPTY: 'Directory not empty',
} as const;
export type FsErrorCode = keyof typeof MESSAGES;

export class FsError extends Error {
  constructor(
    readonly code: FsErrorCode,
    readonly path: string,
  ) {
    super(MESSAGES[code]);
  }
}

const WORLD_WRITABLE = ['/tmp', '/var/tmp', '/dev/shm'];
const DEV_NULL = '/dev/null';

export interface UserFileView {
  path: string;
  size: number;
  sha256: string;
  mode: string;
  owner: string;
  via: string;
  modifiedAt: string;
}

export class MemFs {
  private readonly nodes = new Map<string, FsNode>();
  /** Told the path of every change (what inotify would report): the kubelet watches its manifest directory. */
  private readonly listeners: ((path: string) => void)[] = [];

  onChange(listener: (path: string) => void): void {
    this.listeners.push(listener);
  }

  private changed(p: string): void {
    for (const l of this.listeners) l(p);
  }

  constructor() {
    this.nodes.set('/', { kind: 'dir', mode: 0o755, owner: 'root', mtime: Date.now(), origin: 'image' });
  }

  static resolve(p: string, cwd: string): string {
    return path.resolve(cwd, p || '.');
  }

  get(p: string): FsNode | undefined {
    return this.nodes.get(p);
  }

  isDir(p: string): boolean {
    return this.nodes.get(p)?.kind === 'dir';
  }

  isFile(p: string): boolean {
    return this.nodes.get(p)?.kind === 'file';
  }

  /** Names directly inside a directory, sorted. */
  list(dir: string): string[] {
    const prefix = dir === '/' ? '/' : `${dir}/`;
    const out: string[] = [];
    for (const p of this.nodes.keys()) {
      if (p !== '/' && p.startsWith(prefix) && !p.slice(prefix.length).includes('/')) out.push(p.slice(prefix.length));
    }
    return out.sort();
  }

  canWriteIn(dir: string, who: Who): boolean {
    if (who.uid === 0) return true;
    const node = this.nodes.get(dir);
    if (!node) return false;
    return node.owner === who.name || WORLD_WRITABLE.includes(dir);
  }

  canRead(p: string, who: Who): boolean {
    if (who.uid === 0) return true;
    const node = this.nodes.get(p);
    if (!node) return true; // reported as ENOENT by the caller
    if (p === '/root' || p.startsWith('/root/')) return false;
    return node.owner === who.name || (node.mode & 0o004) !== 0;
  }

  mkdir(p: string, who: Who, opts: { parents?: boolean; mode?: number; origin?: Origin } = {}): void {
    const existing = this.nodes.get(p);
    if (existing) {
      if (existing.kind === 'dir' && opts.parents) return;
      throw new FsError('EEXIST', p);
    }
    const parent = path.dirname(p);
    if (!this.nodes.has(parent)) {
      if (!opts.parents) throw new FsError('ENOENT', p);
      this.mkdir(parent, who, opts);
    }
    if (!this.isDir(parent)) throw new FsError('ENOTDIR', p);
    if (!this.canWriteIn(parent, who)) throw new FsError('EACCES', p);
    this.nodes.set(p, { kind: 'dir', mode: opts.mode ?? 0o755, owner: who.name, mtime: Date.now(), origin: opts.origin ?? 'user' });
    this.changed(p);
  }

  /** Throws unless `who` may create or overwrite the file. */
  checkWritable(p: string, who: Who): void {
    if (p === DEV_NULL) return;
    const node = this.nodes.get(p);
    if (node?.kind === 'dir') throw new FsError('EISDIR', p);
    const parent = path.dirname(p);
    if (!this.nodes.has(parent)) throw new FsError('ENOENT', p);
    if (!this.isDir(parent)) throw new FsError('ENOTDIR', p);
    if (node) {
      if (who.uid !== 0 && node.owner !== who.name) throw new FsError('EACCES', p);
    } else if (!this.canWriteIn(parent, who)) {
      throw new FsError('EACCES', p);
    }
  }

  writeFile(
    p: string,
    data: Buffer | string,
    who: Who,
    opts: { append?: boolean; mode?: number; origin?: Origin; via?: 'sftp' | 'shell' } = {},
  ): void {
    if (p === DEV_NULL) return;
    this.checkWritable(p, who);
    const bytes = Buffer.isBuffer(data) ? data : Buffer.from(data);
    const node = this.nodes.get(p) as FileNode | undefined;
    const content = opts.append && node ? Buffer.concat([node.data, bytes]) : bytes;
    this.nodes.set(p, {
      kind: 'file',
      data: content,
      mode: node?.mode ?? opts.mode ?? 0o644,
      owner: node?.owner ?? who.name,
      mtime: Date.now(),
      origin: opts.origin ?? 'user',
      via: opts.via ?? 'shell',
    });
    this.changed(p);
  }

  readFile(p: string, who: Who): Buffer {
    if (p === DEV_NULL) return Buffer.alloc(0);
    const node = this.nodes.get(p);
    if (!node) throw new FsError('ENOENT', p);
    if (node.kind === 'dir') throw new FsError('EISDIR', p);
    if (!this.canRead(p, who)) throw new FsError('EACCES', p);
    return node.data;
  }

  remove(p: string, who: Who, opts: { recursive?: boolean } = {}): void {
    const node = this.nodes.get(p);
    if (!node) throw new FsError('ENOENT', p);
    if (!this.canWriteIn(path.dirname(p), who)) throw new FsError('EACCES', p);
    if (node.kind === 'dir') {
      const children = this.descendants(p);
      if (children.length > 0 && !opts.recursive) throw new FsError('ENOTEMPTY', p);
      if (!opts.recursive) throw new FsError('EISDIR', p);
      for (const child of children) this.nodes.delete(child);
    }
    this.nodes.delete(p);
    this.changed(p);
  }

  rmdir(p: string, who: Who): void {
    const node = this.nodes.get(p);
    if (!node) throw new FsError('ENOENT', p);
    if (node.kind !== 'dir') throw new FsError('ENOTDIR', p);
    if (this.descendants(p).length > 0) throw new FsError('ENOTEMPTY', p);
    if (!this.canWriteIn(path.dirname(p), who)) throw new FsError('EACCES', p);
    this.nodes.delete(p);
    this.changed(p);
  }

  rename(from: string, to: string, who: Who): void {
    const node = this.nodes.get(from);
    if (!node) throw new FsError('ENOENT', from);
    if (this.isDir(to)) to = path.join(to, path.basename(from));
    if (!this.canWriteIn(path.dirname(from), who)) throw new FsError('EACCES', from);
    this.checkWritable(to, who);
    for (const child of this.descendants(from)) {
      this.nodes.set(to + child.slice(from.length), this.nodes.get(child)!);
      this.nodes.delete(child);
    }
    this.nodes.delete(from);
    this.nodes.set(to, { ...node, mtime: Date.now(), origin: 'user' });
    this.changed(from);
    this.changed(to);
  }

  copy(from: string, to: string, who: Who, opts: { recursive?: boolean } = {}): void {
    const node = this.nodes.get(from);
    if (!node) throw new FsError('ENOENT', from);
    if (!this.canRead(from, who)) throw new FsError('EACCES', from);
    if (this.isDir(to)) to = path.join(to, path.basename(from));
    if (node.kind === 'file') {
      this.writeFile(to, node.data, who, { mode: node.mode });
      return;
    }
    if (!opts.recursive) throw new FsError('EISDIR', from);
    this.mkdir(to, who, { parents: true });
    for (const name of this.list(from)) this.copy(path.join(from, name), path.join(to, name), who, opts);
  }

  chmod(p: string, mode: number, who: Who): void {
    const node = this.nodes.get(p);
    if (!node) throw new FsError('ENOENT', p);
    if (who.uid !== 0 && node.owner !== who.name) throw new FsError('EACCES', p);
    node.mode = mode;
  }

  chown(p: string, owner: string, who: Who): void {
    const node = this.nodes.get(p);
    if (!node) throw new FsError('ENOENT', p);
    if (who.uid !== 0) throw new FsError('EACCES', p);
    node.owner = owner;
  }

  /** Paths matching a glob of one path ("/tmp/*.tar"); * and ? never cross a slash. */
  glob(pattern: string): string[] {
    const re = new RegExp(
      '^' + pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]') + '$',
    );
    return [...this.nodes.keys()].filter((p) => re.test(p) && !path.basename(p).startsWith('.')).sort();
  }

  /** What the product wrote (shell or SFTP), for the admin API: never the content. */
  userFiles(): UserFileView[] {
    const out: UserFileView[] = [];
    for (const [p, node] of this.nodes) {
      if (node.kind !== 'file' || node.origin !== 'user') continue;
      out.push({
        path: p,
        size: node.data.length,
        sha256: createHash('sha256').update(node.data).digest('hex'),
        mode: node.mode.toString(8).padStart(4, '0'),
        owner: node.owner,
        via: node.via ?? 'shell',
        modifiedAt: new Date(node.mtime).toISOString(),
      });
    }
    return out.sort((a, b) => a.path.localeCompare(b.path));
  }

  private descendants(dir: string): string[] {
    const prefix = `${dir}/`;
    return [...this.nodes.keys()].filter((p) => p.startsWith(prefix));
  }
}
