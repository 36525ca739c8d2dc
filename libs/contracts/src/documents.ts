// Document shapes shared by the parsers (libs/pdf, libs/sheets), the index worker, the models and the
// API: what the artifact endpoints serve as grounding_json and segments (docs/api.md, Resources).

export interface FractionBox {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}

/** Element types produced by the parsers. `label` is the human-facing variant of the type. */
export type ElementType =
  | 'title'
  | 'heading'
  | 'text'
  | 'list_item'
  | 'table'
  | 'figure'
  | 'caption'
  | 'page_header'
  | 'page_footer'
  | 'footnote'
  | 'formula'
  | 'code'
  | 'key_value';

export interface TableCell {
  row: number;
  col: number;
  rowSpan: number;
  colSpan: number;
  /** Fractions 0-1 of the page. */
  bbox: FractionBox;
  text: string;
  isHeader: boolean;
}

export type CellsSource = 'table-former' | 'projection' | 'grid-estimate';
export interface CellGrid {
  rows: 'detected' | 'estimated';
  cols: 'detected' | 'estimated';
}

export interface GroundingElement {
  id: string;
  type: ElementType;
  label: string;
  /** Fractions 0-1 of the page, top-left origin. */
  bbox: FractionBox;
  /** Pixels at the rendered resolution (dpi), [x1, y1, x2, y2]. */
  pixel_bbox: [number, number, number, number];
  content: string;
  markdown_anchor: string;
  /** Present on tables. */
  cells?: TableCell[];
  cellsSource?: CellsSource;
  cellGrid?: CellGrid;
  cellsEstimateReason?: string;
  /** Crop written to imgs/ for figures and tables. */
  image?: string;
  /** OCR confidence 0-1 where the text came from OCR. */
  confidence?: number;
  /** Spreadsheet elements carry their sheet range. */
  sheet?: SheetRange;
}

export interface GroundingPage {
  page_number: number;
  /** Page size in pixels at the rendered resolution (the space of `pixel_bbox` and the page image). */
  width: number;
  height: number;
  /** Resolution `pixel_bbox` and the page image were produced at (optional; parsers set it). */
  dpi?: number;
  elements: GroundingElement[];
}

export interface GroundingDocument {
  schema_version: string;
  document: {
    filename: string;
    file_type: string;
    page_count: number;
    processed_at: string;
    mode: string;
  };
  pages: GroundingPage[];
}

export const GROUNDING_SCHEMA_VERSION = '1.0';

export interface SheetRange {
  sheetIndex: number;
  sheetName: string;
  startRow: number;
  endRow: number;
  startCol: number;
  endCol: number;
  rangeA1: string;
}

export interface PageCoordinates {
  pageNumber: number;
  xmin: number;
  ymin: number;
  xmax: number;
  ymax: number;
  sourceType: string;
}

export type SpreadsheetCoordinates = SheetRange & { sourceType: string };

export interface TableMetadata {
  isTable: boolean;
  headers?: string[];
  rowLabels?: string[];
  noteRefs?: string[];
}

/** A segment: the unit of search, citation and model evidence. */
export interface Segment {
  id: string;
  docId: string;
  docName: string;
  title: string;
  markdown: string;
  coordinates: PageCoordinates | SpreadsheetCoordinates;
  pdfUrl: string;
  sourceType: string;
  cells?: TableCell[];
  cellsSource?: CellsSource;
  cellGrid?: CellGrid;
  cellsEstimateReason?: string;
  tableMetadata?: TableMetadata;
  /** The grounding element(s) the segment came from. */
  elementIds?: string[];
}
