// Small hand-made evidence for unit tests, shaped exactly like parser output.
import type { Segment } from '@docfleet/contracts';
import type { Evidence } from '../../src/types';

export function seg(id: string, pageNumber: number, markdown: string): Segment {
  return {
    id,
    docId: 'doc-1',
    docName: 'sample.pdf',
    title: 'sample.pdf',
    markdown,
    coordinates: { pageNumber, xmin: 0, ymin: 0, xmax: 1000, ymax: 100, sourceType: 'pdf' },
    pdfUrl: `/v1/files/doc-1#page=${pageNumber}`,
    sourceType: 'pdf',
  };
}

/** One segment per paragraph; pages are given as arrays of paragraphs. */
export function evidenceOf(pages: string[][]): Evidence {
  const segments = pages.flatMap((paras, p) => paras.map((m, i) => seg(`p${p + 1}-s${i}`, p + 1, m)));
  return { segments, pages: pages.map((paras, p) => ({ pageNumber: p + 1, text: paras.join('\n') })) };
}
