// Buffered, backpressure-aware text output to a file, so artifacts of any size are written without
// building one giant string.
import { createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';

const FLUSH_AT = 256 * 1024;

export class FileTextSink {
  private readonly stream: WriteStream;
  private buffer: string[] = [];
  private buffered = 0;
  private failed: Error | null = null;

  constructor(readonly path: string) {
    this.stream = createWriteStream(path, { encoding: 'utf8' });
    this.stream.on('error', (err) => {
      this.failed = err;
    });
  }

  async write(text: string): Promise<void> {
    this.buffer.push(text);
    this.buffered += text.length;
    if (this.buffered >= FLUSH_AT) await this.flush();
  }

  private async flush(): Promise<void> {
    if (this.failed) throw this.failed;
    if (this.buffer.length === 0) return;
    const chunk = this.buffer.join('');
    this.buffer = [];
    this.buffered = 0;
    if (!this.stream.write(chunk)) await once(this.stream, 'drain');
  }

  async close(): Promise<void> {
    await this.flush();
    this.stream.end();
    await once(this.stream, 'finish');
    if (this.failed) throw this.failed;
  }

  /** Stops writing after a failure elsewhere; resolves once the file is closed, so it can be removed. */
  async destroy(): Promise<void> {
    if (this.stream.closed) return;
    const closed = once(this.stream, 'close');
    this.stream.destroy();
    await closed;
  }
}
