import { ApiError } from '@docfleet/errors';
import type { StorageDriver } from '@docfleet/storage';
import type { Request, Response } from 'express';
import multer from 'multer';
import { StagingStorage, type StagedFile } from './staging-storage';
import { uploadError } from './upload-errors';

/**
 * Receives the multipart upload of one request (field `file`) into staging, hands it to `fn`, and
 * never leaves a staged object behind. Every failure of the stream path rejects with an ApiError
 * (upload-errors.ts). Routes check credentials and permission before calling this: the body is
 * read only for a caller allowed to upload.
 */
export function uploadReceiver(storage: StorageDriver, maxUploadBytes: number) {
  const upload = multer({
    storage: new StagingStorage(storage, maxUploadBytes),
    limits: { fileSize: maxUploadBytes, files: 1, fields: 20, fieldSize: 256 * 1024 },
  }).single('file');

  return async function withUpload<T>(req: Request, res: Response, fn: (staged: StagedFile) => Promise<T>): Promise<T> {
    try {
      await new Promise<void>((resolve, reject) => upload(req, res, (err: unknown) => (err ? reject(err) : resolve())));
    } catch (err) {
      throw uploadError(err, req);
    }
    const staged = (req.file as (Express.Multer.File & { staged?: StagedFile }) | undefined)?.staged;
    if (!staged) throw new ApiError('invalid_request_body', "Send the document as multipart field 'file'.");
    // busboy decodes header parameters as latin1; names are UTF-8 on the wire.
    staged.originalname = Buffer.from(staged.originalname, 'latin1').toString('utf8');
    try {
      return await fn(staged);
    } finally {
      await storage.removePrefix(staged.key).catch(() => undefined);
    }
  };
}
