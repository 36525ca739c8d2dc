import { isApiError } from '@docfleet/errors';
import type { Deps } from '../../deps';
import type { Request } from 'express';
import { dispatchParse } from './dispatch-parse';
import { serializeJob, serializeReservation } from './serialize-job';

/**
 * auto_parse=true on upload and on content replacement. The file is stored either way; when the
 * parse cannot be queued (402, 403) the answer keeps its 2xx status and says why in parse_error,
 * because the upload itself succeeded and must not look failed to the client.
 */
export async function autoParseAfterUpload(
  deps: Deps,
  req: Request,
  fileId: string,
  autoParse: boolean,
): Promise<Record<string, unknown>> {
  if (!autoParse || !req.principal) return {};
  try {
    const r = await dispatchParse(deps, req.principal, fileId, {});
    return {
      parse_job: serializeJob(r.job),
      parse_usage: r.usage,
      credit_reservation: serializeReservation(r.reservation),
    };
  } catch (err) {
    if (!isApiError(err)) throw err;
    return {
      parse_job: null,
      parse_usage: null,
      credit_reservation: null,
      parse_error: { code: err.code, error: err.message },
    };
  }
}
