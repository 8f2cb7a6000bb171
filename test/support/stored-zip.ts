/**
 * Writes a zip of stored (uncompressed) entries to a file, streaming the
 * large ones from files on disk: test packages with an artifact of hundreds
 * of megabytes, without holding it in memory (adm-zip builds zips in memory).
 * No zip64: every entry and the whole zip stay under 4 GiB.
 */
import fs from 'node:fs';
import zlib from 'node:zlib';

export type ZipInput = { name: string; data: Buffer } | { name: string; file: string; size: number; crc32: number };

const DOS_DATE = ((2024 - 1980) << 9) | (1 << 5) | 1; // 2024-01-01

export async function writeStoredZip(out: string, entries: ZipInput[]): Promise<void> {
  const fd = fs.openSync(out, 'w');
  const central: Buffer[] = [];
  let offset = 0;
  const write = (b: Buffer) => { fs.writeSync(fd, b); offset += b.length; };
  try {
    for (const e of entries) {
      const name = Buffer.from(e.name);
      const size = 'data' in e ? e.data.length : e.size;
      const crc = 'data' in e ? zlib.crc32(e.data) : e.crc32;
      const at = offset;
      write(header(0x04034b50, name, size, crc));
      if ('data' in e) write(e.data);
      else for await (const piece of fs.createReadStream(e.file, { highWaterMark: 1024 * 1024 })) write(piece as Buffer);
      central.push(header(0x02014b50, name, size, crc, at));
    }
    const cdStart = offset;
    for (const c of central) write(c);
    const end = Buffer.alloc(22);
    end.writeUInt32LE(0x06054b50, 0);
    end.writeUInt16LE(entries.length, 8);
    end.writeUInt16LE(entries.length, 10);
    end.writeUInt32LE(offset - cdStart, 12);
    end.writeUInt32LE(cdStart, 16);
    write(end);
  } finally {
    fs.closeSync(fd);
  }
}

/** A local file header (no offset) or a central directory header (with the local header's offset), method 0. */
function header(signature: number, name: Buffer, size: number, crc: number, localOffset?: number): Buffer {
  const central = localOffset !== undefined;
  const h = Buffer.alloc((central ? 46 : 30) + name.length);
  h.writeUInt32LE(signature, 0);
  let at = 4;
  if (central) { h.writeUInt16LE(20, at); at += 2; } // version made by
  h.writeUInt16LE(20, at); // version needed
  h.writeUInt16LE(0x800, at + 2); // UTF-8 names
  h.writeUInt16LE(0, at + 4); // stored
  h.writeUInt16LE(0, at + 6); // time
  h.writeUInt16LE(DOS_DATE, at + 8);
  h.writeUInt32LE(crc, at + 10);
  h.writeUInt32LE(size, at + 14);
  h.writeUInt32LE(size, at + 18);
  h.writeUInt16LE(name.length, at + 22);
  if (central) h.writeUInt32LE(localOffset, 42);
  name.copy(h, central ? 46 : 30);
  return h;
}
