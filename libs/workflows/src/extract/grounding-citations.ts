// File-job citations (docs/api.md, "Extraction results": "Citations are merged with citations
// resolved against the grounding; each additionally carries elementId and bbox"). A model citation names a
// segment; a segment may merge several grounding elements, so the element whose text holds the quote (or the
// value) is the one cited. A value the model returned without a citation gets one when its text is found
// verbatim in an element of the selected segments: that is provenance the grounding proves.
import type { FractionBox, GroundingDocument, Segment } from '@docfleet/contracts';
import { segmentPage, type Citation } from '@docfleet/models';

export interface GroundedCitation extends Citation {
  elementId: string | null;
  bbox: FractionBox | null;
  /** `model` (as the model returned it, resolved) or `grounding` (found by the worker). */
  source: 'model' | 'grounding';
}

interface Located {
  elementId: string;
  bbox: FractionBox;
  content: string;
  pageNumber: number;
}

/** Text compared loosely: lowercase, runs of whitespace as one space. */
const flat = (s: string) => s.toLowerCase().replace(/\s+/g, ' ').trim();

/** Citation confidence for values found by the worker in the grounding (below a model's usual). */
export const GROUNDING_MATCH_CONFIDENCE = 0.6;

export class GroundingIndex {
  private readonly elements = new Map<string, Located>();
  private readonly segments = new Map<string, Segment>();

  constructor(segments: Segment[], grounding?: GroundingDocument) {
    for (const p of grounding?.pages ?? []) {
      for (const e of p.elements)
        this.elements.set(e.id, { elementId: e.id, bbox: e.bbox, content: e.content, pageNumber: p.page_number });
    }
    for (const s of segments) this.segments.set(s.id, s);
  }

  private elementsOf(seg: Segment): Located[] {
    return (seg.elementIds?.length ? seg.elementIds : [seg.id])
      .map((id) => this.elements.get(id))
      .filter((x): x is Located => !!x);
  }

  /** The element of a cited segment that holds the quote (else the value, else the segment's first). */
  resolve(c: Citation, value: unknown): GroundedCitation {
    const seg = this.segments.get(c.segmentId);
    const els = seg ? this.elementsOf(seg) : [];
    const q = c.quote ? flat(c.quote) : '';
    const v = typeof value === 'string' || typeof value === 'number' ? flat(String(value)) : '';
    const hit =
      (q && els.find((e) => flat(e.content).includes(q))) ||
      (v && els.find((e) => flat(e.content).includes(v))) ||
      els[0];
    return { ...c, elementId: hit?.elementId ?? null, bbox: hit?.bbox ?? null, source: 'model' };
  }

  /** A citation for a value nobody cited, when its text appears in an element of the selected segments. */
  find(path: string, value: unknown): GroundedCitation | undefined {
    if (typeof value !== 'string' && typeof value !== 'number') return undefined;
    const v = flat(String(value));
    if (v.length < 2 || (typeof value === 'string' && v.length < 3)) return undefined;
    for (const seg of this.segments.values()) {
      for (const e of this.elementsOf(seg)) {
        if (!flat(e.content).includes(v)) continue;
        return {
          path,
          segmentId: seg.id,
          pageNumber: segmentPage(seg),
          quote: e.content.trim().slice(0, 500),
          confidence: GROUNDING_MATCH_CONFIDENCE,
          elementId: e.elementId,
          bbox: e.bbox,
          source: 'grounding',
        };
      }
    }
    return undefined;
  }
}

/** Every scalar value of a result with its slash path (`/a`, `/rows/0/b`). */
export function scalarPaths(value: unknown, base = ''): Array<{ path: string; value: unknown }> {
  if (value === null || value === undefined) return [];
  if (Array.isArray(value)) return value.flatMap((v, i) => scalarPaths(v, `${base}/${i}`));
  if (typeof value === 'object')
    return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) => scalarPaths(v, `${base}/${k}`));
  return [{ path: base, value }];
}
