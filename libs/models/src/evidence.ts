// Builds the structured evidence a model call reads from parse artifacts. Page text is taken from
// the grounding (not from segments) because headers and footers, which carry page-number markers
// and running titles that split depends on, are kept in grounding but dropped from segments.
import type { GroundingDocument, Segment } from '@docfleet/contracts';
import type { Evidence, PageText } from './types';

export function pageTextsFromGrounding(grounding: GroundingDocument): PageText[] {
  return grounding.pages.map((p) => ({
    pageNumber: p.page_number,
    text: p.elements
      .map((e) => e.content.trim())
      .filter(Boolean)
      .join('\n'),
  }));
}

export function buildEvidence(segments: Segment[], grounding?: GroundingDocument): Evidence {
  return grounding ? { segments, grounding, pages: pageTextsFromGrounding(grounding) } : { segments };
}

/** Page number of a segment (spreadsheet segments count as page 1: sheets have no pages). */
export function segmentPage(seg: Segment): number {
  const c = seg.coordinates as { pageNumber?: number };
  return typeof c.pageNumber === 'number' ? c.pageNumber : 1;
}

/** Page texts from whatever the evidence carries: pages, else grounding, else segments grouped by page. */
export function evidencePages(ev: Evidence): PageText[] {
  if (ev.pages?.length) return ev.pages;
  if (ev.grounding) return pageTextsFromGrounding(ev.grounding);
  const byPage = new Map<number, string[]>();
  for (const s of ev.segments) {
    const n = segmentPage(s);
    byPage.set(n, [...(byPage.get(n) ?? []), s.markdown]);
  }
  return [...byPage.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([pageNumber, parts]) => ({ pageNumber, text: parts.join('\n') }));
}
