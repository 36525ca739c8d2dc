import { randomUUID } from 'node:crypto';
import { openAsBlob } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';

/**
 * What an upload accepts: a path on disk (streamed, never read whole), bytes, a Blob/File, or a
 * stream (Node Readable, web ReadableStream or any async iterable of bytes).
 */
export type UploadSource =
  | string
  | Uint8Array
  | ArrayBuffer
  | Blob
  | NodeJS.ReadableStream
  | ReadableStream<Uint8Array>
  | AsyncIterable<Uint8Array | string>;

export interface PreparedBody {
  body: FormData | AsyncIterable<Uint8Array>;
  contentType?: string;
}

export interface FilePart {
  source: UploadSource;
  /** Name of the multipart file part; required when the source carries no name of its own. */
  filename?: string;
  contentType?: string;
}

/** The best name the source itself offers: a path's base name, a File's name, an fs stream's path. */
function sourceName(src: UploadSource): string | undefined {
  if (typeof src === 'string') return basename(src);
  const named = src as { name?: unknown; path?: unknown };
  if (typeof File !== 'undefined' && src instanceof File && named.name) return String(named.name);
  if (typeof named.path === 'string') return basename(named.path);
  return undefined;
}

/**
 * Builds the multipart body. Paths, bytes and Blobs go through FormData with a (file-backed)
 * Blob, so fetch streams them with a Content-Length; streams of unknown length are framed by hand
 * and sent chunked, so nothing is ever buffered whole.
 */
export async function multipart(fields: Record<string, string | undefined>, part: FilePart): Promise<PreparedBody> {
  const name = sourceName(part.source) ?? part.filename;
  if (!name) throw new TypeError('upload: pass options.filename when uploading bytes or a stream');
  const type = part.contentType ?? 'application/octet-stream';
  const blob = await toBlob(part.source, type);
  const entries = Object.entries(fields).filter((e): e is [string, string] => e[1] !== undefined);
  if (blob) {
    const form = new FormData();
    for (const [k, v] of entries) form.append(k, v);
    form.append('file', blob, name);
    return { body: form };
  }
  const boundary = `----docfleet-${randomUUID().replace(/-/g, '')}`;
  return {
    body: framed(boundary, entries, name, type, toIterable(part.source)),
    contentType: `multipart/form-data; boundary=${boundary}`,
  };
}

async function toBlob(src: UploadSource, type: string): Promise<Blob | undefined> {
  if (typeof src === 'string') {
    const st = await stat(src);
    if (!st.isFile()) throw new TypeError(`upload: ${src} is not a regular file`);
    // A Blob backed by the file: read in chunks while the request is sent.
    return (await openAsBlob(src, { type })) as Blob;
  }
  if (src instanceof Blob) return src;
  if (src instanceof Uint8Array) return new Blob([src as Uint8Array<ArrayBuffer>], { type });
  if (src instanceof ArrayBuffer) return new Blob([src], { type });
  return undefined;
}

async function* toIterable(src: UploadSource): AsyncIterable<Uint8Array> {
  const reader =
    typeof (src as ReadableStream).getReader === 'function'
      ? (src as ReadableStream<Uint8Array>).getReader()
      : undefined;
  if (reader) {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        yield value;
      }
    } finally {
      reader.releaseLock();
    }
  }
  if (typeof src === 'object' && src !== null && Symbol.asyncIterator in src) {
    for await (const chunk of src as AsyncIterable<Uint8Array | string>)
      yield typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    return;
  }
  throw new TypeError('upload: unsupported source; pass a path, bytes, a Blob or a readable stream');
}

// WHATWG multipart/form-data escaping of names (what fetch's own FormData encoder does).
const escapeName = (s: string) => s.replace(/\r/g, '%0D').replace(/\n/g, '%0A').replace(/"/g, '%22');

async function* framed(
  boundary: string,
  fields: Array<[string, string]>,
  filename: string,
  type: string,
  content: AsyncIterable<Uint8Array>,
): AsyncIterable<Uint8Array> {
  for (const [k, v] of fields) {
    yield Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${escapeName(k)}"\r\n\r\n${v.replace(/\r(?!\n)|(?<!\r)\n/g, '\r\n')}\r\n`,
    );
  }
  yield Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${escapeName(filename)}"\r\nContent-Type: ${type}\r\n\r\n`,
  );
  yield* content;
  yield Buffer.from(`\r\n--${boundary}--\r\n`);
}
