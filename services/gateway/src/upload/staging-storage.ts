import { randomUUID } from 'node:crypto';
import { Transform } from 'node:stream';
import type { StorageDriver } from '@docfleet/storage';
import type { Request } from 'express';
import type { StorageEngine } from 'multer';

export interface StagedFile {
  key: string;
  sha256: string;
  byteSize: number;
  head: Buffer;
  originalname: string;
}

const HEAD_BYTES = 8192;

/** Storage failed while staging an upload (not the body): the cause is logged, never sent. */
export class StagingError extends Error {
  constructor(override readonly cause: unknown) {
    super(`staging the upload failed: ${(cause as Error)?.message ?? String(cause)}`);
    this.name = 'StagingError';
  }
}

/**
 * A multer storage engine that streams the upload straight into storage under a staging key,
 * hashing it and keeping its first bytes for sniffing. Nothing is buffered in memory; the route
 * moves the staged object into the knowledge base's root once the fields are validated.
 *
 * Failures reach multer through the callback only: an error of the body (busboy's file stream:
 * truncated, malformed, client gone) is passed as it is, a storage failure as a StagingError, so
 * the route can answer 400 for the first and 5xx for the second (upload-errors.ts).
 */
export class StagingStorage implements StorageEngine {
  constructor(
    private readonly storage: StorageDriver,
    private readonly maxBytes: number,
  ) {}

  _handleFile(
    _req: Request,
    file: Express.Multer.File,
    cb: (error?: unknown, info?: Partial<Express.Multer.File> & { staged?: StagedFile }) => void,
  ): void {
    const key = `staging/uploads/${randomUUID()}`;
    const chunks: Buffer[] = [];
    let kept = 0;
    let bodyError: unknown;
    const peek = new Transform({
      transform(chunk: Buffer, _e, done) {
        if (kept < HEAD_BYTES) {
          chunks.push(chunk.subarray(0, HEAD_BYTES - kept));
          kept += Math.min(chunk.length, HEAD_BYTES - kept);
        }
        done(null, chunk);
      },
    });
    // Every error ends up in putStream's promise; this listener only keeps an error emitted before
    // or after storage listens from being unhandled (which would end the process).
    peek.on('error', () => undefined);
    file.stream.on('error', (err) => {
      bodyError ??= err;
      peek.destroy(err);
    });
    file.stream.pipe(peek);
    this.storage
      .putStream(key, peek, { maxBytes: this.maxBytes })
      .then((r) =>
        cb(null, {
          size: r.byteSize,
          staged: {
            key,
            sha256: r.sha256,
            byteSize: r.byteSize,
            head: Buffer.concat(chunks),
            originalname: file.originalname,
          },
        }),
      )
      .catch((err) => cb(bodyError ?? new StagingError(err)));
  }

  _removeFile(
    _req: Request,
    file: Express.Multer.File & { staged?: StagedFile },
    cb: (error: Error | null) => void,
  ): void {
    if (!file.staged) return cb(null);
    this.storage.removePrefix(file.staged.key).then(
      () => cb(null),
      (err) => cb(err),
    );
  }
}
