/** An exec channel's stdin as the interpreter reads it: lines or everything, waiting for the client. */
import type { Input } from './shell/io';

interface ReadableChannel {
  on(event: 'data', fn: (chunk: Buffer) => void): unknown;
  on(event: 'end' | 'close', fn: () => void): unknown;
}

export class ChannelInput implements Input {
  private buf = Buffer.alloc(0);
  private ended = false;
  private waiters: (() => void)[] = [];

  constructor(channel: ReadableChannel) {
    channel.on('data', (chunk) => {
      this.buf = Buffer.concat([this.buf, chunk]);
      this.wake();
    });
    // EOF from the client, or the channel went away: nothing more will come.
    const end = () => {
      this.ended = true;
      this.wake();
    };
    channel.on('end', end);
    channel.on('close', end);
  }

  async readLine(): Promise<string | null> {
    for (;;) {
      const nl = this.buf.indexOf(10);
      if (nl >= 0) {
        const line = this.buf.subarray(0, nl).toString('utf8').replace(/\r$/, '');
        this.buf = this.buf.subarray(nl + 1);
        return line;
      }
      if (this.ended) {
        if (this.buf.length === 0) return null;
        const rest = this.buf.toString('utf8');
        this.buf = Buffer.alloc(0);
        return rest;
      }
      await this.next();
    }
  }

  async readAll(): Promise<Buffer> {
    while (!this.ended) await this.next();
    const all = this.buf;
    this.buf = Buffer.alloc(0);
    return all;
  }

  private next(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }
}
