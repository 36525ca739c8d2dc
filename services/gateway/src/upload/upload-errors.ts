import { ApiError, isApiError } from '@docfleet/errors';
import { StorageLimitError } from '@docfleet/storage';
import type { Request } from 'express';
import { MulterError } from 'multer';
import { StagingError } from './staging-storage';

/**
 * What a failure while receiving a multipart upload means for the client. Every path ends as one
 * ApiError for that request: the body's faults are 4xx, storage faults 5xx (their cause is logged,
 * never sent: no paths or errno on the wire).
 */
export function uploadError(err: unknown, req: Request): ApiError {
  if (isApiError(err)) return err;
  if (err instanceof MulterError) {
    if (err.code === 'LIMIT_FILE_SIZE')
      return new ApiError('file_too_large', 'The uploaded file is larger than the upload limit.');
    if (err.code === 'LIMIT_FIELD_VALUE' || err.code === 'LIMIT_FIELD_COUNT' || err.code === 'LIMIT_PART_COUNT') {
      return new ApiError('request_too_large', `The multipart body is too large: ${err.message}.`);
    }
    return new ApiError('invalid_request_body', `Invalid multipart body: ${err.message}.`);
  }
  if (err instanceof StagingError) {
    const cause = err.cause;
    if (cause instanceof StorageLimitError)
      return new ApiError('file_too_large', 'The uploaded file is larger than the upload limit.');
    const errno = (cause as NodeJS.ErrnoException)?.code;
    req.log.error({ err: cause }, 'staging an upload failed');
    if (errno === 'ENOSPC' || errno === 'EDQUOT') {
      return new ApiError('insufficient_storage', 'There is no space left to store the upload; try again later.');
    }
    return new ApiError('storage_unavailable', 'The upload could not be stored; try again later.');
  }
  // The connection closed before the whole request arrived: nobody reads this answer.
  if (!req.complete) {
    req.log.info({ err: (err as Error)?.message }, 'client went away mid-upload');
    return new ApiError('invalid_request_body', 'The upload ended before it was complete.');
  }
  // Everything else comes from parsing the body (busboy): cut off before the closing boundary,
  // a malformed part, a missing or absent boundary. Its messages name no server detail.
  return new ApiError('invalid_request_body', `Invalid multipart body: ${(err as Error)?.message ?? 'malformed'}.`);
}
