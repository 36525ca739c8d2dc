// Writes the four spreadsheet artifacts either into memory (small inputs, tests) or streamed into
// files (anything large): the same calls fill both, so the content is identical.
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import {
  GROUNDING_SCHEMA_VERSION,
  type GroundingDocument,
  type GroundingElement,
  type GroundingPage,
} from '@docfleet/contracts';
import { FileTextSink } from './text-sink';
import type {
  SpreadsheetArtifactPaths,
  SpreadsheetKind,
  TablesDocument,
  WorkbookDocument,
  WorkbookRow,
  WorkbookSheet,
} from './types';

export const ARTIFACT_FILES: SpreadsheetArtifactPaths = {
  workbook_json: 'workbook.json',
  tables_json: 'tables.json',
  result_md: 'result.md',
  grounding_json: 'grounding.json',
};

export const SHEETS_SCHEMA_VERSION = '1.0';

export interface DocumentInfo {
  filename: string;
  kind: SpreadsheetKind;
  processedAt: string;
}

export type SheetHead = Omit<WorkbookSheet, 'rows'>;

export interface ArtifactWriter {
  begin(pageCount: number): Promise<void>;
  workbookSheet(head: SheetHead, rows: Iterable<WorkbookRow>): Promise<void>;
  markdown(text: string): Promise<void>;
  groundingPage(page: Omit<GroundingPage, 'elements'>, elements: Iterable<GroundingElement>): Promise<void>;
  finish(tables: TablesDocument): Promise<void>;
  abort(): Promise<void>;
}

function groundingDocument(info: DocumentInfo, pageCount: number): Omit<GroundingDocument, 'pages'> {
  return {
    schema_version: GROUNDING_SCHEMA_VERSION,
    document: {
      filename: info.filename,
      file_type: info.kind,
      page_count: pageCount,
      processed_at: info.processedAt,
      mode: 'spreadsheet',
    },
  };
}

function workbookHead(info: DocumentInfo): Omit<WorkbookDocument, 'sheets'> {
  return {
    schema_version: SHEETS_SCHEMA_VERSION,
    filename: info.filename,
    source_type: 'spreadsheet',
    kind: info.kind,
  };
}

export class MemoryArtifacts implements ArtifactWriter {
  workbook!: WorkbookDocument;
  grounding!: GroundingDocument;
  private readonly md: string[] = [];

  constructor(private readonly info: DocumentInfo) {}

  async begin(pageCount: number): Promise<void> {
    this.workbook = { ...workbookHead(this.info), sheets: [] };
    this.grounding = { ...groundingDocument(this.info, pageCount), pages: [] };
  }

  async workbookSheet(head: SheetHead, rows: Iterable<WorkbookRow>): Promise<void> {
    this.workbook.sheets.push({ ...head, rows: [...rows] });
  }

  async markdown(text: string): Promise<void> {
    this.md.push(text);
  }

  async groundingPage(page: Omit<GroundingPage, 'elements'>, elements: Iterable<GroundingElement>): Promise<void> {
    this.grounding.pages.push({ ...page, elements: [...elements] });
  }

  async finish(): Promise<void> {}

  async abort(): Promise<void> {}

  get markdownText(): string {
    return this.md.join('');
  }
}

/** Streams JSON by hand: heads are JSON.stringify'd without their big array, then items follow. */
export class FileArtifacts implements ArtifactWriter {
  readonly paths: SpreadsheetArtifactPaths;
  // Files are opened by begin(), so a refusal before the first sheet leaves nothing behind.
  private workbook!: FileTextSink;
  private md!: FileTextSink;
  private grounding!: FileTextSink;
  private tables: FileTextSink | null = null;
  private opened = false;
  private sheetsWritten = 0;
  private pagesWritten = 0;

  private constructor(
    dir: string,
    private readonly info: DocumentInfo,
  ) {
    this.paths = {
      workbook_json: join(dir, ARTIFACT_FILES.workbook_json),
      tables_json: join(dir, ARTIFACT_FILES.tables_json),
      result_md: join(dir, ARTIFACT_FILES.result_md),
      grounding_json: join(dir, ARTIFACT_FILES.grounding_json),
    };
  }

  static async create(dir: string, info: DocumentInfo): Promise<FileArtifacts> {
    await mkdir(dir, { recursive: true });
    return new FileArtifacts(dir, info);
  }

  async begin(pageCount: number): Promise<void> {
    this.workbook = new FileTextSink(this.paths.workbook_json);
    this.md = new FileTextSink(this.paths.result_md);
    this.grounding = new FileTextSink(this.paths.grounding_json);
    this.opened = true;
    await this.workbook.write(openArray(workbookHead(this.info), 'sheets'));
    await this.grounding.write(openArray(groundingDocument(this.info, pageCount), 'pages'));
  }

  async workbookSheet(head: SheetHead, rows: Iterable<WorkbookRow>): Promise<void> {
    await this.workbook.write((this.sheetsWritten++ ? ',' : '') + openArray(head, 'rows'));
    let first = true;
    for (const row of rows) {
      await this.workbook.write((first ? '' : ',') + JSON.stringify(row));
      first = false;
    }
    await this.workbook.write(']}');
  }

  async markdown(text: string): Promise<void> {
    await this.md.write(text);
  }

  async groundingPage(page: Omit<GroundingPage, 'elements'>, elements: Iterable<GroundingElement>): Promise<void> {
    await this.grounding.write((this.pagesWritten++ ? ',' : '') + openArray(page, 'elements'));
    let first = true;
    for (const el of elements) {
      await this.grounding.write((first ? '' : ',') + JSON.stringify(el));
      first = false;
    }
    await this.grounding.write(']}');
  }

  async finish(tables: TablesDocument): Promise<void> {
    await this.workbook.write(']}');
    await this.grounding.write(']}');
    const sink = (this.tables = new FileTextSink(this.paths.tables_json));
    const { tables: list, texts, ...head } = tables;
    await sink.write(openArray(head, 'tables'));
    for (let k = 0; k < list.length; k++) {
      const { rows, ...tableHead } = list[k]!;
      await sink.write((k ? ',' : '') + openArray(tableHead, 'rows'));
      for (let i = 0; i < rows.length; i++) await sink.write((i ? ',' : '') + JSON.stringify(rows[i]));
      await sink.write(']}');
    }
    await sink.write(`],"texts":${JSON.stringify(texts)}}`);
    await Promise.all([sink.close(), this.workbook.close(), this.md.close(), this.grounding.close()]);
  }

  async abort(): Promise<void> {
    if (!this.opened) return;
    const sinks = [this.workbook, this.md, this.grounding, this.tables].filter((x): x is FileTextSink => x !== null);
    await Promise.all(sinks.map((x) => x.destroy()));
    await Promise.all(Object.values(this.paths).map((p) => rm(p, { force: true })));
  }
}

/** '{"a":1,"b":2,"key":[' : the object's JSON with `key` as an open array at the end. */
function openArray(head: object, key: string): string {
  const json = JSON.stringify(head);
  return `${json.length > 2 ? `${json.slice(0, -1)},` : '{'}${JSON.stringify(key)}:[`;
}
