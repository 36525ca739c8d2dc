// POST /v1/split/download: one record of a split as its own PDF (pdf-lib copyPages), and a file
// name for Content-Disposition that is safe in any browser or shell.
import { ApiError } from '@docfleet/errors';
import { PDFDocument } from 'pdf-lib';

export async function pdfPageRange(source: Uint8Array, startPage: number, endPage: number): Promise<Uint8Array> {
  let doc: PDFDocument;
  try {
    doc = await PDFDocument.load(source, { ignoreEncryption: true, updateMetadata: false });
  } catch (err) {
    throw new ApiError(
      'unsupported_file_type',
      `The source file could not be read as a PDF: ${(err as Error).message}`,
    );
  }
  const pages = doc.getPageCount();
  if (startPage < 1 || endPage < startPage || endPage > pages) {
    throw new ApiError(
      'invalid_page_range',
      `startPage and endPage must satisfy 1 ≤ startPage ≤ endPage ≤ ${pages} (the file has ${pages} page${pages === 1 ? '' : 's'}); got ${startPage}-${endPage}.`,
    );
  }
  const out = await PDFDocument.create();
  const indices = Array.from({ length: endPage - startPage + 1 }, (_, i) => startPage - 1 + i);
  for (const p of await out.copyPages(doc, indices)) out.addPage(p);
  return out.save();
}

const asciiName = (s: string) =>
  s
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/_+/g, '_')
    .replace(/^[._-]+|[._-]+$/g, '')
    .slice(0, 100)
    .replace(/\.pdf$/i, '');

/** ASCII file name from a title: letters, digits, dot, dash and underscore; `.pdf` appended. */
export function safePdfFilename(title: string, fallback = 'document'): string {
  return `${asciiName(title) || asciiName(fallback) || 'document'}.pdf`;
}

/** Content-Disposition with the ASCII name plus the UTF-8 title (RFC 6266 / 5987). */
export function pdfContentDisposition(title: string, fallback?: string): string {
  const ascii = safePdfFilename(title, fallback);
  const utf8 = title.trim()
    ? `; filename*=UTF-8''${encodeURIComponent(`${title.trim().slice(0, 100)}.pdf`).replace(/['()*]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`)}`
    : '';
  return `attachment; filename="${ascii}"${utf8}`;
}

/** Page sizes (points) of a PDF: what a downloaded record holds, for callers and tests. */
export async function pdfPageSizes(bytes: Uint8Array): Promise<Array<{ width: number; height: number }>> {
  const doc = await PDFDocument.load(bytes, { ignoreEncryption: true, updateMetadata: false });
  return doc.getPages().map((p) => p.getSize());
}
