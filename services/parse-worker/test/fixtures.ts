// Corpus files the parse worker's tests read (in place, never modified); the PDFs built from them
// on the fly come from libs/testing (pdfs.ts), shared with the benchmarks.
import { corpus } from './stack';

export { combine, densePdf, repeatPages, textPdf } from '@docfleet/testing';

export const NDA3 = corpus('e_multipage_split/kleister_nda/435d6eaa82632030cfc84bbd93e96bf8.pdf');
export const NDA5 = corpus('e_multipage_split/kleister_nda/5089dc0cb013e46c3f9e21a2531504ed.pdf');
/** One born-digital page with a table (cropped to imgs/p0001_table_1.jpg). */
export const BORN_DIGITAL_PG9 = corpus('a_born_digital/docling/2305.03393v1-pg9.pdf');
export const NDA8 = corpus('e_multipage_split/kleister_nda/9c05001246961d7ebcaa6e1758c808e6.pdf');
