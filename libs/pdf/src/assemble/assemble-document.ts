// Joins per-page results (fresh or reused from a previous version) into the document artifacts.
import { GROUNDING_SCHEMA_VERSION, type GroundingDocument, type GroundingPage } from '@docfleet/contracts';

export interface AssembledDocument {
  grounding: GroundingDocument;
  markdown: string;
}

export function assembleDocument(
  filename: string,
  fileType: string,
  pages: GroundingPage[],
  pageMarkdown: string[],
  mode: string,
  opts: { processedAt?: Date; pageCount?: number } = {},
): AssembledDocument {
  if (pages.length !== pageMarkdown.length) {
    throw new RangeError(`pages (${pages.length}) and pageMarkdown (${pageMarkdown.length}) must have the same length`);
  }
  const order = pages.map((p, i) => ({ p, md: pageMarkdown[i]! })).sort((a, b) => a.p.page_number - b.p.page_number);
  const grounding: GroundingDocument = {
    schema_version: GROUNDING_SCHEMA_VERSION,
    document: {
      filename,
      file_type: fileType,
      page_count: opts.pageCount ?? pages.length,
      processed_at: (opts.processedAt ?? new Date()).toISOString(),
      mode,
    },
    pages: order.map((o) => o.p),
  };
  const markdown =
    order
      .map((o) => o.md.trim())
      .filter(Boolean)
      .join('\n\n') + '\n';
  return { grounding, markdown };
}
