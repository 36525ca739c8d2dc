// Joins per-page results (fresh or reused from a previous version) into the document artifacts.
import { GROUNDING_SCHEMA_VERSION, type GroundingDocument, type GroundingPage } from '@docfleet/contracts';
import { joinPageBreakHyphen, type AssemblyPage } from './page-break-hyphen';

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
  const order: AssemblyPage[] = pages
    .map((grounding, i) => ({ grounding, markdown: pageMarkdown[i]! }))
    .sort((a, b) => a.grounding.page_number - b.grounding.page_number);
  for (let i = 0; i + 1 < order.length; i++) [order[i], order[i + 1]] = joinPageBreakHyphen(order[i]!, order[i + 1]!);
  const grounding: GroundingDocument = {
    schema_version: GROUNDING_SCHEMA_VERSION,
    document: {
      filename,
      file_type: fileType,
      page_count: opts.pageCount ?? pages.length,
      processed_at: (opts.processedAt ?? new Date()).toISOString(),
      mode,
    },
    pages: order.map((o) => o.grounding),
  };
  const markdown =
    order
      .map((o) => o.markdown.trim())
      .filter(Boolean)
      .join('\n\n') + '\n';
  return { grounding, markdown };
}
