/**
 * The SFTP subsystem over a host's in-memory filesystem, as the logged-in
 * user: open/read/write/close, stat, mkdir/rmdir, remove, rename, realpath,
 * directory listing, chmod via setstat. Uploads are recorded as files written
 * "via sftp" (size and sha256 appear in the admin view, never the content).
 */
import type { SFTPWrapper } from 'ssh2';
import { utils } from 'ssh2';
import type { Account } from './host/accounts';
import { whoOf } from './host/accounts';
import { FsError, MemFs, type FileNode, type FsNode } from './host/fs';
import type { SimHost } from './host/host';

const { OPEN_MODE, STATUS_CODE } = utils.sftp;

type Handle =
  | { kind: 'file'; path: string; writable: boolean; buf: Buffer; length: number }
  | { kind: 'dir'; path: string; listed: boolean };

function attrsOf(node: FsNode) {
  const seconds = Math.floor(node.mtime / 1000);
  const type = node.kind === 'dir' ? 0o040000 : 0o100000;
  return { mode: type | node.mode, uid: node.owner === 'root' ? 0 : 1000, gid: node.owner === 'root' ? 0 : 1000, size: node.kind === 'file' ? node.data.length : 4096, atime: seconds, mtime: seconds };
}

function statusOf(err: unknown): number {
  if (!(err instanceof FsError)) return STATUS_CODE.FAILURE;
  return err.code === 'ENOENT' ? STATUS_CODE.NO_SUCH_FILE : err.code === 'EACCES' ? STATUS_CODE.PERMISSION_DENIED : STATUS_CODE.FAILURE;
}

export function serveSftp(sftp: SFTPWrapper, host: SimHost, account: Account): void {
  const who = whoOf(account);
  const fs = host.fs;
  const handles = new Map<string, Handle>();
  let nextHandle = 0;
  const resolve = (p: string) => MemFs.resolve(p, fs.isDir(account.home) ? account.home : '/');
  const newHandle = (h: Handle) => {
    const id = Buffer.from(String(nextHandle++));
    handles.set(id.toString(), h);
    return id;
  };
  /** Runs an operation; a thrown FsError becomes the matching SFTP status. */
  const attempt = (reqid: number, fn: () => void) => {
    try {
      fn();
    } catch (err) {
      sftp.status(reqid, statusOf(err), err instanceof Error ? err.message : undefined);
    }
  };
  const ok = (reqid: number) => sftp.status(reqid, STATUS_CODE.OK);

  sftp.on('OPEN', (reqid, filename, flags) =>
    attempt(reqid, () => {
      const path = resolve(filename);
      const node = fs.get(path);
      const writable = (flags & (OPEN_MODE.WRITE | OPEN_MODE.APPEND)) !== 0;
      if (writable) {
        if (node && flags & OPEN_MODE.EXCL && flags & OPEN_MODE.CREAT) throw new FsError('EEXIST', path);
        if (!node && !(flags & OPEN_MODE.CREAT)) throw new FsError('ENOENT', path);
        fs.checkWritable(path, who);
        if (!node || flags & OPEN_MODE.TRUNC) fs.writeFile(path, Buffer.alloc(0), who, { via: 'sftp' });
      } else {
        fs.readFile(path, who); // existence and permission
      }
      const data = (fs.get(path) as FileNode).data;
      sftp.handle(reqid, newHandle({ kind: 'file', path, writable, buf: Buffer.from(data), length: data.length }));
    }),
  );

  sftp.on('WRITE', (reqid, handle, offset, data) =>
    attempt(reqid, () => {
      const h = handles.get(handle.toString());
      const node = h?.kind === 'file' ? fs.get(h.path) : undefined;
      if (h?.kind !== 'file' || !h.writable || node?.kind !== 'file') throw new FsError('EACCES', h?.path ?? '');
      const end = offset + data.length;
      if (end > h.buf.length) {
        // Grow geometrically: uploads arrive in many small chunks.
        const grown = Buffer.alloc(Math.max(end, h.buf.length * 2, 64 * 1024));
        h.buf.copy(grown, 0, 0, h.length);
        h.buf = grown;
      }
      data.copy(h.buf, offset);
      h.length = Math.max(h.length, end);
      node.data = h.buf.subarray(0, h.length);
      node.mtime = Date.now();
      node.origin = 'user';
      node.via = 'sftp';
      ok(reqid);
    }),
  );

  sftp.on('READ', (reqid, handle, offset, length) => {
    const h = handles.get(handle.toString());
    const node = h ? fs.get(h.path) : undefined;
    if (h?.kind !== 'file' || node?.kind !== 'file') return sftp.status(reqid, STATUS_CODE.FAILURE);
    if (offset >= node.data.length) return sftp.status(reqid, STATUS_CODE.EOF);
    sftp.data(reqid, node.data.subarray(offset, offset + length));
  });

  sftp.on('CLOSE', (reqid, handle) => {
    handles.delete(handle.toString());
    ok(reqid);
  });

  const stat = (reqid: number, path: string) => {
    const node = fs.get(path);
    if (!node) return sftp.status(reqid, STATUS_CODE.NO_SUCH_FILE);
    sftp.attrs(reqid, attrsOf(node));
  };
  sftp.on('STAT', (reqid, p) => stat(reqid, resolve(p)));
  sftp.on('LSTAT', (reqid, p) => stat(reqid, resolve(p)));
  sftp.on('FSTAT', (reqid, handle) => {
    const h = handles.get(handle.toString());
    if (!h) return sftp.status(reqid, STATUS_CODE.FAILURE);
    stat(reqid, h.path);
  });

  const setstat = (reqid: number, path: string, attrs: { mode?: number }) =>
    attempt(reqid, () => {
      if (attrs.mode !== undefined) fs.chmod(path, attrs.mode & 0o7777, who);
      else if (!fs.get(path)) throw new FsError('ENOENT', path);
      ok(reqid);
    });
  sftp.on('SETSTAT', (reqid, p, attrs) => setstat(reqid, resolve(p), attrs));
  sftp.on('FSETSTAT', (reqid, handle, attrs) => {
    const h = handles.get(handle.toString());
    if (!h) return sftp.status(reqid, STATUS_CODE.FAILURE);
    setstat(reqid, h.path, attrs);
  });

  sftp.on('MKDIR', (reqid, p, attrs) =>
    attempt(reqid, () => {
      fs.mkdir(resolve(p), who, { mode: attrs.mode !== undefined ? attrs.mode & 0o7777 : undefined });
      ok(reqid);
    }),
  );
  sftp.on('RMDIR', (reqid, p) => attempt(reqid, () => (fs.rmdir(resolve(p), who), ok(reqid))));
  sftp.on('REMOVE', (reqid, p) =>
    attempt(reqid, () => {
      const path = resolve(p);
      if (fs.isDir(path)) throw new FsError('EISDIR', path);
      fs.remove(path, who);
      ok(reqid);
    }),
  );
  // SFTP v3 rename (OpenSSH's sftp-server): the target must not exist.
  sftp.on('RENAME', (reqid, from, to) =>
    attempt(reqid, () => {
      if (fs.get(resolve(to))) throw new FsError('EEXIST', resolve(to));
      fs.rename(resolve(from), resolve(to), who);
      ok(reqid);
    }),
  );
  sftp.on('REALPATH', (reqid, p) => {
    const path = resolve(p);
    sftp.name(reqid, [{ filename: path, longname: path, attrs: {} as never }]);
  });
  sftp.on('OPENDIR', (reqid, p) => {
    const path = resolve(p);
    if (!fs.isDir(path)) return sftp.status(reqid, STATUS_CODE.NO_SUCH_FILE);
    if (!fs.canRead(path, who)) return sftp.status(reqid, STATUS_CODE.PERMISSION_DENIED);
    sftp.handle(reqid, newHandle({ kind: 'dir', path, listed: false }));
  });
  sftp.on('READDIR', (reqid, handle) => {
    const h = handles.get(handle.toString());
    if (h?.kind !== 'dir') return sftp.status(reqid, STATUS_CODE.FAILURE);
    if (h.listed) return sftp.status(reqid, STATUS_CODE.EOF);
    h.listed = true;
    const names = fs.list(h.path).map((name) => {
      const node = fs.get(h.path === '/' ? `/${name}` : `${h.path}/${name}`)!;
      return { filename: name, longname: `${node.kind === 'dir' ? 'd' : '-'}rw-r--r-- 1 ${node.owner} ${node.owner} ${attrsOf(node).size} Jan 1 00:00 ${name}`, attrs: attrsOf(node) };
    });
    sftp.name(reqid, names);
  });
  sftp.on('READLINK', (reqid) => sftp.status(reqid, STATUS_CODE.OP_UNSUPPORTED));
  sftp.on('SYMLINK', (reqid) => sftp.status(reqid, STATUS_CODE.OP_UNSUPPORTED));
}
