// @docfleet/pdf: PDF and image parsing for the parse worker. See README.md.
export { ParseError, isParseError, type ParseErrorCode } from './parse-error';
export { inspectDocument, type InspectOptions, type InspectResult, type InputKind } from './inspect/inspect-document';
export { countPages } from './inspect/count-pages';
export { pageCountFromTrailer } from './inspect/page-count-head';
export {
  GRAPHICS_CEILING,
  TEXT_FLOOR_CHARS,
  type Backend,
  type BackendDecision,
  type PageMetrics,
} from './inspect/backend-decision';
export { parsePages } from './parse/parse-pages';
export { pageImageName } from './render/page-renderer';
export { removeDeadScratch } from './parse/scratch';
export { startOcrHeadStart, type OcrHeadStart, type OcrHeadStartOptions } from './parse/ocr-head-start';
export {
  startImageOcrHeadStart,
  type ImageOcrHeadStart,
  type ImageOcrHeadStartOptions,
} from './parse/image-head-start';
export type { DecodedImage } from './render/image-input';
export type { OcrPageReport, OcrVariantReport } from './ocr/recognise';
export { textLayerEvent, type TextLayerUse } from './ocr/text-layer-words';
export { missingLanguageWarning, ocrLanguageEvent, type OcrLanguageChoice } from './ocr/ocr-language';
export type { ParsedPage, ParsePagesOptions, ParsePagesResult, ParseBackend, ParsePhase } from './parse/parse-types';
export { assembleDocument, type AssembledDocument } from './assemble/assemble-document';
export { joinPageBreakHyphen, type AssemblyPage } from './assemble/page-break-hyphen';
export { segmentsFromGrounding, type SegmentContext } from './segments/segments-from-grounding';
export { tableMarkdown } from './markdown/markdown-writer';
export { DEFAULT_PAGE_BUDGET, cappedDpi, pageBudget, type PageBudget } from './budget';
export type { FailedPage, PageProgress } from './parse/parse-types';
