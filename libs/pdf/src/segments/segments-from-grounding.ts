// Grounding → search/citation segments. One segment per element with markdown (headers, footers
// and empty figures carry none and are dropped). Runs of short text elements under the same
// heading merge into one segment so search hits carry enough context; a merged segment keeps the
// id of its first element, which stays a valid citation anchor.
import type { GroundingDocument, GroundingElement, PageCoordinates, Segment, TableMetadata } from '@docfleet/contracts';
import { tableMetadata } from './table-metadata';

export interface SegmentContext {
  fileId: string;
  docName: string;
  manifestId?: string;
  sourceType: string;
  /** Builds the segment's `pdfUrl` path for a page (default: see pdfUrl below). */
  pdfUrl?: (pageNumber: number) => string;
  /** Merge consecutive short text elements up to this many characters (0 disables; default 600). */
  mergeShortTextUpTo?: number;
}

const MERGEABLE = new Set(['text', 'list_item']);
const SHORT = 200;

const to1000 = (v: number) => Math.min(1000, Math.max(0, Math.round(v * 1000)));

export function segmentsFromGrounding(doc: GroundingDocument, ctx: SegmentContext): Segment[] {
  const limit = ctx.mergeShortTextUpTo ?? 600;
  const out: Segment[] = [];
  for (const page of doc.pages) {
    let heading = '';
    let open: { seg: Segment; box: PageCoordinates; parts: string[]; ids: string[] } | undefined;
    const close = () => {
      if (!open) return;
      open.seg.markdown = open.parts.join('\n\n');
      open.seg.coordinates = open.box;
      open.seg.elementIds = open.ids;
      out.push(open.seg);
      open = undefined;
    };
    for (const el of page.elements) {
      // Text inside a figure stays out of the document markdown but is worth finding in search.
      const md =
        el.type === 'figure' && el.content.trim() && el.markdown_anchor
          ? `${el.markdown_anchor.trim()}\n\n${el.content.trim()}`
          : el.markdown_anchor?.trim();
      if (el.type === 'heading' || el.type === 'title') heading = el.content.trim();
      if (!md) continue;
      const coords = coordinates(el, page.page_number, ctx.sourceType);
      const mergeable = limit > 0 && MERGEABLE.has(el.type) && md.length <= SHORT;
      if (
        open &&
        mergeable &&
        open.seg.title === (heading || ctx.docName) &&
        open.seg.markdown.length + md.length <= limit
      ) {
        open.parts.push(md);
        open.ids.push(el.id);
        open.seg.markdown += md; // running length only; rebuilt on close
        open.box = unionCoords(open.box, coords);
        continue;
      }
      close();
      const seg = baseSegment(el, md, coords, heading, page.page_number, ctx);
      if (mergeable) open = { seg, box: coords, parts: [md], ids: [el.id] };
      else out.push(seg);
    }
    close();
  }
  return out;
}

function baseSegment(
  el: GroundingElement,
  md: string,
  coords: PageCoordinates,
  heading: string,
  pageNumber: number,
  ctx: SegmentContext,
): Segment {
  const seg: Segment = {
    id: el.id,
    docId: ctx.fileId,
    docName: ctx.docName,
    title: el.type === 'heading' || el.type === 'title' ? el.content.trim() : heading || ctx.docName,
    markdown: md,
    coordinates: coords,
    pdfUrl: pdfUrl(ctx, pageNumber),
    sourceType: ctx.sourceType,
    elementIds: [el.id],
  };
  if (el.type === 'table' && el.cells) {
    seg.cells = el.cells;
    if (el.cellsSource) seg.cellsSource = el.cellsSource;
    if (el.cellGrid) seg.cellGrid = el.cellGrid;
    if (el.cellsEstimateReason) seg.cellsEstimateReason = el.cellsEstimateReason;
    const meta: TableMetadata = tableMetadata(el.cells);
    seg.tableMetadata = meta;
  }
  return seg;
}

function coordinates(el: GroundingElement, pageNumber: number, sourceType: string): PageCoordinates {
  const b = el.bbox;
  return { pageNumber, xmin: to1000(b.x1), ymin: to1000(b.y1), xmax: to1000(b.x2), ymax: to1000(b.y2), sourceType };
}

function unionCoords(a: PageCoordinates, b: PageCoordinates): PageCoordinates {
  return {
    ...a,
    xmin: Math.min(a.xmin, b.xmin),
    ymin: Math.min(a.ymin, b.ymin),
    xmax: Math.max(a.xmax, b.xmax),
    ymax: Math.max(a.ymax, b.ymax),
  };
}

/**
 * Path (not URL; clients prefix {base_url}) showing the segment's page. With a manifest id it is
 * the page image artifact, which the API serves; otherwise the file resource with a page
 * fragment. Callers with another scheme pass `pdfUrl`.
 */
function pdfUrl(ctx: SegmentContext, pageNumber: number): string {
  if (ctx.pdfUrl) return ctx.pdfUrl(pageNumber);
  if (ctx.manifestId)
    return `/v1/artifacts/${encodeURIComponent(ctx.manifestId)}/pages?file=page_${String(pageNumber).padStart(4, '0')}.png`;
  return `/v1/files/${encodeURIComponent(ctx.fileId)}#page=${pageNumber}`;
}
