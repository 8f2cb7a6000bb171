/**
 * Just enough tar for `docker load` / `docker save`: an image archive is a
 * tar (optionally gzipped) whose manifest.json lists the image's RepoTags.
 */
import { gunzipSync } from 'node:zlib';

function entries(buf: Buffer): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (let off = 0; off + 512 <= buf.length; ) {
    const header = buf.subarray(off, off + 512);
    if (header.every((b) => b === 0)) break;
    const name = header.subarray(0, 100).toString('utf8').replace(/\0.*$/s, '');
    const prefix = header.subarray(345, 500).toString('utf8').replace(/\0.*$/s, '');
    const size = parseInt(header.subarray(124, 136).toString('utf8').replace(/\0.*$/s, '').trim() || '0', 8);
    if (Number.isNaN(size)) throw new Error('invalid tar header');
    const full = prefix ? `${prefix}/${name}` : name;
    out.set(full.replace(/^\.\//, ''), buf.subarray(off + 512, off + 512 + size));
    off += 512 + Math.ceil(size / 512) * 512;
  }
  return out;
}

/** What `docker load` would find: `{tags}` from manifest.json, `{tags: []}` for an archive without tags, undefined if not an image archive. */
export function readImageArchive(data: Buffer): { tags: string[] } | undefined {
  let buf = data;
  try {
    if (buf[0] === 0x1f && buf[1] === 0x8b) buf = gunzipSync(buf);
    if (buf.length < 512 || buf.subarray(257, 262).toString('latin1') !== 'ustar') return undefined;
    const manifest = entries(buf).get('manifest.json');
    if (!manifest) return undefined;
    const parsed = JSON.parse(manifest.toString('utf8')) as { RepoTags?: string[] | null }[];
    return { tags: parsed.flatMap((m) => m.RepoTags ?? []) };
  } catch {
    return undefined;
  }
}

function header(name: string, size: number): Buffer {
  const h = Buffer.alloc(512);
  h.write(name, 0, 100, 'utf8');
  h.write('0000644\0', 100, 'latin1');
  h.write('0000000\0', 108, 'latin1');
  h.write('0000000\0', 116, 'latin1');
  h.write(`${size.toString(8).padStart(11, '0')}\0`, 124, 'latin1');
  h.write(`${Math.floor(Date.now() / 1000).toString(8).padStart(11, '0')}\0`, 136, 'latin1');
  h.write('0', 156, 'latin1');
  h.write('ustar\0', 257, 'latin1');
  h.write('00', 263, 'latin1');
  h.fill(' ', 148, 156);
  let sum = 0;
  for (const b of h) sum += b;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
  return h;
}

/** A minimal image archive as `docker save` writes it (manifest.json and a config blob). */
export function writeImageArchive(tags: string[], payload: Buffer = Buffer.alloc(0)): Buffer {
  const files: [string, Buffer][] = [
    ['manifest.json', Buffer.from(JSON.stringify([{ Config: 'config.json', RepoTags: tags, Layers: ['layer.tar'] }]))],
    ['config.json', Buffer.from(JSON.stringify({ architecture: 'amd64', os: 'linux' }))],
    ['layer.tar', payload],
  ];
  const parts: Buffer[] = [];
  for (const [name, data] of files) {
    parts.push(header(name, data.length), data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}
