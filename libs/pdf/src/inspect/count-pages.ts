// A cheap page count for credit estimates at dispatch time: the page tree's /Count read from the
// file's structure (page-count-head.ts: a few kilobytes, whatever the page count), else pdf.js reads
// the page tree (no hashing, no operator lists); images count their frames (multi-page TIFF/GIF),
// 1 otherwise.
import { closePdf, openPdf } from '../pdfjs-loader';
import { imagePageCount } from '../render/image-input';
import { pageCountFromTrailer } from './page-count-head';

/**
 * Pages of a PDF or image file; throws ParseError when the file cannot be read. For a PDF this is
 * what the file claims (its /Count): an estimate, which the worker's real count overrules.
 */
export async function countPages(path: string, kind: 'pdf' | 'image'): Promise<number> {
  if (kind === 'image') return imagePageCount(path);
  const claimed = await pageCountFromTrailer(path);
  if (claimed !== null && claimed > 0) return claimed;
  const doc = await openPdf(path);
  try {
    return doc.numPages;
  } finally {
    await closePdf(doc);
  }
}
