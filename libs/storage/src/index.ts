import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export interface PutResult {
  key: string;
  sha256: string;
  byteSize: number;
}
export interface ListEntry {
  name: string;
  kind: 'file' | 'directory';
  size: number;
}

/**
 * Where uploaded bytes and artifact bundles live. Keys are opaque, '/'-separated and always start
 * with the managed root of one knowledge base ("kb/<kbId>/..."), so deleting a knowledge base
 * removes exactly one root. Drivers must reject keys that try to escape their root.
 */
export interface StorageDriver {
  put(key: string, data: Buffer | string): Promise<PutResult>;
  putStream(key: string, stream: Readable, opts?: { maxBytes?: number }): Promise<PutResult>;
  read(key: string): Promise<Buffer>;
  readStream(key: string): Readable;
  exists(key: string): Promise<boolean>;
  size(key: string): Promise<number>;
  list(prefix: string): Promise<ListEntry[]>;
  removePrefix(prefix: string): Promise<boolean>;
  /** Moves an object to a new key (same driver); used to promote staged uploads. */
  move(fromKey: string, toKey: string): Promise<void>;
  /** Absolute local path of a key, for tools (pdftoppm, tesseract) that need a file. */
  localPath(key: string): string;
}

export class StorageLimitError extends Error {
  constructor(readonly limit: number) {
    super(`stream exceeded ${limit} bytes`);
  }
}

export const kbRoot = (kbId: string) => `kb/${kbId}`;
export const fileVersionKey = (kbId: string, fileId: string, versionNumber: number) =>
  `${kbRoot(kbId)}/files/${fileId}/v${versionNumber}/original`;
export const artifactPrefix = (kbId: string, fileId: string, manifestId: string) =>
  `${kbRoot(kbId)}/files/${fileId}/artifacts/${manifestId}`;
export const filePrefix = (kbId: string, fileId: string) => `${kbRoot(kbId)}/files/${fileId}`;

function hashingCounter(maxBytes?: number) {
  const hash = createHash('sha256');
  let bytes = 0;
  const t = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      bytes += chunk.length;
      if (maxBytes !== undefined && bytes > maxBytes) return cb(new StorageLimitError(maxBytes));
      hash.update(chunk);
      cb(null, chunk);
    },
  });
  return { t, done: () => ({ sha256: hash.digest('hex'), byteSize: bytes }) };
}

export class FilesystemStorage implements StorageDriver {
  readonly root: string;
  constructor(root: string) {
    this.root = path.resolve(root);
  }

  localPath(key: string): string {
    if (!key || key.includes('\0')) throw new Error('invalid storage key');
    const abs = path.resolve(this.root, key);
    if (abs !== this.root && !abs.startsWith(this.root + path.sep))
      throw new Error('storage key escapes the storage root');
    return abs;
  }

  async put(key: string, data: Buffer | string): Promise<PutResult> {
    const abs = this.localPath(key);
    await mkdir(path.dirname(abs), { recursive: true });
    const buf = typeof data === 'string' ? Buffer.from(data) : data;
    const tmp = `${abs}.tmp-${process.pid}-${Date.now()}`;
    await writeFile(tmp, buf);
    await rename(tmp, abs);
    return { key, sha256: createHash('sha256').update(buf).digest('hex'), byteSize: buf.length };
  }

  // Written to a temp name and renamed, so a reader never sees half a file.
  async putStream(key: string, stream: Readable, opts: { maxBytes?: number } = {}): Promise<PutResult> {
    const abs = this.localPath(key);
    // The source may fail while the directory is being made (a client gone mid-upload): listen from
    // the start, or that error is emitted with no listener and ends the process.
    let early: unknown;
    const onEarly = (err: unknown) => (early ??= err);
    stream.on('error', onEarly);
    try {
      await mkdir(path.dirname(abs), { recursive: true });
    } catch (err) {
      stream.destroy();
      throw err;
    } finally {
      stream.off('error', onEarly);
    }
    if (early) throw early;
    const tmp = `${abs}.tmp-${process.pid}-${Date.now()}`;
    const counter = hashingCounter(opts.maxBytes);
    try {
      await pipeline(stream, counter.t, createWriteStream(tmp));
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
    await rename(tmp, abs);
    return { key, ...counter.done() };
  }

  read(key: string): Promise<Buffer> {
    return readFile(this.localPath(key));
  }

  readStream(key: string): Readable {
    return createReadStream(this.localPath(key));
  }

  async exists(key: string): Promise<boolean> {
    try {
      await stat(this.localPath(key));
      return true;
    } catch {
      return false;
    }
  }

  async size(key: string): Promise<number> {
    return (await stat(this.localPath(key))).size;
  }

  async list(prefix: string): Promise<ListEntry[]> {
    const dir = this.localPath(prefix);
    try {
      const entries = await readdir(dir, { withFileTypes: true });
      const out: ListEntry[] = [];
      for (const e of entries) {
        if (e.name.includes('.tmp-')) continue;
        const s = await stat(path.join(dir, e.name));
        out.push({ name: e.name, kind: e.isDirectory() ? 'directory' : 'file', size: s.size });
      }
      return out.sort((a, b) => a.name.localeCompare(b.name));
    } catch {
      return [];
    }
  }

  async move(fromKey: string, toKey: string): Promise<void> {
    const to = this.localPath(toKey);
    await mkdir(path.dirname(to), { recursive: true });
    await rename(this.localPath(fromKey), to);
  }

  async removePrefix(prefix: string): Promise<boolean> {
    const abs = this.localPath(prefix);
    const existed = await this.exists(prefix);
    await rm(abs, { recursive: true, force: true });
    return existed;
  }
}

export function createStorage(dataDir: string): StorageDriver {
  return new FilesystemStorage(path.join(dataDir, 'storage'));
}
export { jsonArrayElements, type JsonArrayOptions } from './json-array-stream';
