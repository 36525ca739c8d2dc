// Internal page model shared by both backends. Coordinates are page points, top-left origin
// (OCR words are converted from raster pixels into the same space).
import type { CellGrid, CellsSource, ElementType } from '@docfleet/contracts';
import type { Box } from './geometry';

/** A horizontal piece of text in one font: a pdf.js text item or an OCR word. */
export interface TextRun extends Box {
  text: string;
  /** Font size in points (height of the em box). */
  size: number;
  baseline: number;
  bold: boolean;
  italic: boolean;
  mono: boolean;
  /** OCR confidence 0-1; undefined for text-layer runs. */
  conf?: number;
  /** OCR line key (block/par/line) so lines follow Tesseract's own grouping. */
  ocrLine?: string;
  /** Text not running left-to-right horizontally (kept out of line merging). */
  rotated?: boolean;
}

export interface Line extends Box {
  runs: TextRun[];
  text: string;
  size: number;
  bold: boolean;
  mono: boolean;
  /** Right-to-left line: `runs` and `text` are in logical order, its start is its right edge. */
  rtl?: boolean;
}

export interface Block extends Box {
  lines: Line[];
}

/** A straight ruling segment: horizontal (y0 === y1 within tolerance) or vertical. */
export interface Ruling {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

export interface PageGraphics {
  /** Image placements (clipped to the page). */
  images: Box[];
  /** Bounding boxes of painted vector paths (fills and strokes), excluding invisible/white fills. */
  drawings: Box[];
  /** Stroked or thin-filled straight lines usable as table rulings. */
  hRules: Ruling[];
  vRules: Ruling[];
  /** Filled rectangles (cell shading); their edges can act as rulings. */
  fillRects: Box[];
  /** Paths with curves or diagonals (charts, logos, diagrams): figure evidence. */
  shapes: Box[];
  /**
   * Extents (declared BBox, clipped to the page) of the Form XObjects the page paints. An included
   * graphic (pdflatex's \includegraphics of a PDF chart, a placed EPS) is one form whose BBox frames
   * the whole graphic, axis labels and legends included.
   */
  forms?: Box[];
}

export interface TableCellModel extends Box {
  row: number;
  col: number;
  rowSpan: number;
  colSpan: number;
  text: string;
  isHeader: boolean;
}

export interface TableModel extends Box {
  cells: TableCellModel[];
  rows: number;
  cols: number;
  cellsSource: CellsSource;
  cellGrid: CellGrid;
  cellsEstimateReason?: string;
}

export interface LayoutElement extends Box {
  type: ElementType;
  text: string;
  /** Heading level 1-3 for headings/titles. */
  level?: number;
  table?: TableModel;
  /** Mean OCR confidence when the page was OCRed. */
  confidence?: number;
}

export interface PageLayoutInput {
  width: number;
  height: number;
  runs: TextRun[];
  graphics: PageGraphics;
  source: 'text' | 'ocr';
}
