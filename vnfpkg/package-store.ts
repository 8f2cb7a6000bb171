/**
 * Uploaded package zips on disk (PACKAGE_STORE_DIR, default DATA_DIR/packages),
 * one file per package, shared by the API (writes, serves) and the workers
 * (onboard). An upload is streamed into a temporary file in the same
 * directory and renamed into place only when it is complete, so a reader
 * never sees half a zip.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import { once } from 'node:events';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { PassThrough, Transform, type Readable } from 'node:stream';

/** Package ids are UUIDs we minted; anything else never becomes a file name. */
const ID = /^[0-9a-f-]{36}$/i;

export class PackageStore {
  constructor(readonly dir: string) {}

  /** The package's zip; throws for an id that is not a package id. */
  pathOf(packageId: string): string {
    if (!ID.test(packageId)) throw new Error(`not a package id: ${packageId}`);
    return path.join(this.dir, `${packageId}.zip`);
  }

  /** The zip, or undefined when the package has none. */
  read(packageId: string): Buffer | undefined {
    try {
      return fs.readFileSync(this.pathOf(packageId));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw e;
    }
  }

  remove(packageId: string): void {
    fs.rmSync(this.pathOf(packageId), { force: true });
  }

  /** Moves a finished temporary file into place (atomic within the directory). */
  commit(tempFile: string, packageId: string): void {
    fs.renameSync(tempFile, this.pathOf(packageId));
  }

  /** Writes bytes as the package's zip (a legacy BLOB at start-up). */
  write(packageId: string, data: Buffer): void {
    const temp = this.tempPath(packageId);
    try {
      fs.writeFileSync(temp, data, { mode: 0o600 });
      this.commit(temp, packageId);
    } finally {
      fs.rmSync(temp, { force: true });
    }
  }

  /**
   * Streams `body` into a temporary file, at most `maxBytes`; returns the file.
   * Over the cap: TooLarge, and no file is left behind (nor on any other error).
   * `body` itself is not destroyed on failure (it is piped through a
   * PassThrough) but drained, so the 413 reaches an HTTP caller.
   */
  async receive(packageId: string, body: Readable, maxBytes: number): Promise<{ file: string; bytes: number }> {
    const file = this.tempPath(packageId);
    const pass = new PassThrough();
    body.once('close', () => { if (!body.readableEnded) pass.destroy(new Error('the upload was aborted')); });
    body.pipe(pass);
    let bytes = 0;
    const counter = new Transform({
      transform(chunk: Buffer, _enc, done) {
        bytes += chunk.length;
        done(bytes > maxBytes ? new TooLarge(maxBytes) : null, chunk);
      },
    });
    const out = fs.createWriteStream(file, { mode: 0o600 });
    try {
      await pipeline(pass, counter, out);
      return { file, bytes };
    } catch (e) {
      // The file is opened asynchronously: a stream destroyed early may create it after this point; wait for its close first.
      if (!out.closed) await once(out, 'close').catch(() => undefined);
      fs.rmSync(file, { force: true });
      // The rest is read and dropped (as body-parser does): the caller gets its answer and the connection stays usable.
      body.unpipe(pass);
      body.resume();
      throw e;
    }
  }

  private tempPath(packageId: string): string {
    fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    return path.join(this.dir, `.upload-${path.basename(this.pathOf(packageId), '.zip')}-${crypto.randomUUID()}.tmp`);
  }
}

export class TooLarge extends Error {
  constructor(readonly maxBytes: number) {
    super(`more than ${maxBytes} bytes`);
  }
}
