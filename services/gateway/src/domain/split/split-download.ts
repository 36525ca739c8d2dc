import type { Principal } from '@docfleet/auth';
import type { api } from '@docfleet/contracts';
import { ApiError } from '@docfleet/errors';
import { pdfContentDisposition, pdfPageRange } from '@docfleet/workflows';
import type { Deps } from '../../deps';
import { loadFile } from '../files/files';

/**
 * POST /v1/split/download: pages startPage..endPage of the file's current version as a new PDF.
 * Viewer access only (no workflow permission, no parse needed), no model and no credit.
 */
export async function downloadSplitRange(
  deps: Pick<Deps, 'db' | 'storage'>,
  p: Principal,
  body: api.SplitDownloadBody,
) {
  const file = await loadFile(deps.db, p, body.file_id);
  const v = file.current_version;
  if (v.content_type !== 'application/pdf') {
    throw new ApiError('unsupported_file_type', `Split download needs a PDF source; this file is ${v.content_type}.`);
  }
  if (body.startPage < 1 || body.endPage < body.startPage) {
    throw new ApiError(
      'invalid_page_range',
      `startPage must be at least 1 and endPage at least startPage; got ${body.startPage}-${body.endPage}.`,
    );
  }
  const bytes = await pdfPageRange(await deps.storage.read(v.storage_path), body.startPage, body.endPage);
  const fallback = `${file.filename.replace(/\.pdf$/i, '')}-pages-${body.startPage}-${body.endPage}`;
  return { bytes, contentDisposition: pdfContentDisposition(body.title, fallback) };
}
