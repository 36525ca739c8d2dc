// A cheap page count for credit estimates at dispatch time: pdf.js reads the page tree only (no
// hashing, no operator lists); images count their frames (multi-page TIFF/GIF), 1 otherwise.
import { closePdf, openPdf } from '../pdfjs-loader';
import { imagePageCount } from '../render/image-input';

/** Pages of a PDF or image file; throws ParseError when the file cannot be read. */
export async function countPages(path: string, kind: 'pdf' | 'image'): Promise<number> {
  if (kind === 'image') return imagePageCount(path);
  const doc = await openPdf(path);
  try {
    return doc.numPages;
  } finally {
    await closePdf(doc);
  }
}
