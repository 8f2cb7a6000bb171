/**
 * Byte streams between simulated commands. Pipelines run their stages one
 * after the other, so a stage's output is simply buffered and becomes the
 * next stage's input; only the exec channel's stdin arrives over time.
 */

export interface Input {
  /** The next line without its newline; null at end of input. */
  readLine(): Promise<string | null>;
  /** Everything up to end of input (waits for the client's EOF on a channel). */
  readAll(): Promise<Buffer>;
}

export interface Output {
  write(chunk: string | Buffer): void;
}

export interface Io {
  stdin: Input;
  stdout: Output;
  stderr: Output;
}

export class BufferInput implements Input {
  private data: Buffer;

  constructor(data: string | Buffer = '') {
    this.data = Buffer.isBuffer(data) ? data : Buffer.from(data);
  }

  async readLine(): Promise<string | null> {
    if (this.data.length === 0) return null;
    const nl = this.data.indexOf(10);
    const end = nl < 0 ? this.data.length : nl;
    const line = this.data.subarray(0, end).toString('utf8');
    this.data = this.data.subarray(nl < 0 ? end : end + 1);
    return line;
  }

  async readAll(): Promise<Buffer> {
    const all = this.data;
    this.data = Buffer.alloc(0);
    return all;
  }
}

export const emptyInput = (): Input => new BufferInput();

export class BufferOutput implements Output {
  private readonly chunks: Buffer[] = [];

  write(chunk: string | Buffer): void {
    this.chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  }

  buffer(): Buffer {
    return Buffer.concat(this.chunks);
  }

  text(): string {
    return this.buffer().toString('utf8');
  }
}

export const nullOutput: Output = { write() {} };

/** Text with a trailing newline, unless empty. */
export function lines(items: string[]): string {
  return items.length === 0 ? '' : `${items.join('\n')}\n`;
}
