// Layout elements (page points) → API grounding elements (docs/api.md, Resources): fractional and pixel boxes, stable
// ids, labels, markdown anchors, table cells. Ids hash the element's type, text and rounded
// position, so an unchanged element keeps its citation anchor across re-parses even when other
// elements on the page come or go.
import { createHash } from 'node:crypto';
import type { ElementType, FractionBox, GroundingElement, GroundingPage, TableCell } from '@docfleet/contracts';
import { clamp, type Box } from '../geometry';
import { elementMarkdown } from '../markdown/markdown-writer';
import type { LayoutElement } from '../types';

export const ELEMENT_LABELS: Record<ElementType, string> = {
  title: 'Title',
  heading: 'Section header',
  text: 'Text',
  list_item: 'List item',
  table: 'Table',
  figure: 'Figure',
  caption: 'Caption',
  page_header: 'Page header',
  page_footer: 'Page footer',
  footnote: 'Footnote',
  formula: 'Formula',
  code: 'Code',
  key_value: 'Key-value',
};

export interface PageGeometry {
  pageNumber: number;
  /** Page size in points (PDF) or in points derived from the image density. */
  widthPt: number;
  heightPt: number;
  /** Rendered size in pixels at `dpi`: the space of pixel_bbox and of pages/page_NNNN.png. */
  widthPx: number;
  heightPx: number;
  dpi: number;
}

export interface BuiltElement {
  element: GroundingElement;
  layout: LayoutElement;
}

const round = (v: number, d = 5) => Math.round(v * 10 ** d) / 10 ** d;

export function fractionBox(b: Box, g: PageGeometry): FractionBox {
  return {
    x1: round(clamp(b.x0 / g.widthPt, 0, 1)),
    y1: round(clamp(b.y0 / g.heightPt, 0, 1)),
    x2: round(clamp(b.x1 / g.widthPt, 0, 1)),
    y2: round(clamp(b.y1 / g.heightPt, 0, 1)),
  };
}

export function pixelBox(b: Box, g: PageGeometry): [number, number, number, number] {
  const sx = g.widthPx / g.widthPt,
    sy = g.heightPx / g.heightPt;
  return [
    Math.round(clamp(b.x0 * sx, 0, g.widthPx)),
    Math.round(clamp(b.y0 * sy, 0, g.heightPx)),
    Math.round(clamp(b.x1 * sx, 0, g.widthPx)),
    Math.round(clamp(b.y1 * sy, 0, g.heightPx)),
  ];
}

export function elementId(pageNumber: number, el: LayoutElement, g: PageGeometry, used: Set<string>): string {
  const f = fractionBox(el, g);
  const key = `${el.type}|${el.text}|${[f.x1, f.y1, f.x2, f.y2].map((v) => Math.round(v * 200)).join(',')}`;
  const base = `p${pageNumber}-${createHash('sha1').update(key).digest('hex').slice(0, 10)}`;
  let id = base;
  for (let k = 2; used.has(id); k++) id = `${base}-${k}`;
  used.add(id);
  return id;
}

/** Crop file name for a figure/table; deterministic per page so reused pages keep their files. */
export const cropName = (pageNumber: number, type: string, index: number) =>
  `p${String(pageNumber).padStart(4, '0')}_${type}_${index}.jpg`;

export function buildGroundingPage(
  g: PageGeometry,
  elements: LayoutElement[],
  imageFor: (el: LayoutElement) => string | undefined,
): { page: GroundingPage; markdown: string } {
  const used = new Set<string>();
  const out: GroundingElement[] = [];
  const parts: string[] = [];
  for (const el of elements) {
    const image = imageFor(el);
    const md = elementMarkdown(el, image);
    const ge: GroundingElement = {
      id: elementId(g.pageNumber, el, g, used),
      type: el.type,
      label:
        el.type === 'heading' && el.level ? `${ELEMENT_LABELS.heading} (level ${el.level})` : ELEMENT_LABELS[el.type],
      bbox: fractionBox(el, g),
      pixel_bbox: pixelBox(el, g),
      content: el.text,
      markdown_anchor: md,
    };
    if (el.table) {
      ge.cells = el.table.cells.map((c): TableCell => ({
        row: c.row,
        col: c.col,
        rowSpan: c.rowSpan,
        colSpan: c.colSpan,
        bbox: fractionBox(c, g),
        text: c.text,
        isHeader: c.isHeader,
      }));
      ge.cellsSource = el.table.cellsSource;
      ge.cellGrid = el.table.cellGrid;
      if (el.table.cellsEstimateReason) ge.cellsEstimateReason = el.table.cellsEstimateReason;
    }
    if (image) ge.image = image;
    if (el.confidence !== undefined) ge.confidence = round(el.confidence, 3);
    out.push(ge);
    if (md) parts.push(md);
  }
  return {
    page: { page_number: g.pageNumber, width: g.widthPx, height: g.heightPx, dpi: g.dpi, elements: out },
    markdown: parts.join('\n\n'),
  };
}
