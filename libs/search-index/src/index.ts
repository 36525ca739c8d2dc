// The search index (evidence_index_segments, its BM25 postings and statistics, evidence_index_state):
// how a parse bundle's segments become its rows, how they leave it, and the one statement a search
// reads them with. The index worker's jobs write through it, the gateway's search reads through it.
export type { SearchIndexDeps } from './deps';
export {
  batches,
  defaultSourceType,
  filenameWords,
  indexFileVersion,
  insertRows,
  readSegmentRows,
  streamBatches,
  streamSegmentRowsOf,
} from './write-file-version';
export type { IndexFileVersionPayload, IndexOutcome, RowOwner, SkipReason } from './write-file-version';
export { removeFile } from './remove-file';
export type { RemoveOutcome } from './remove-file';
export { applyIndexDelta, indexedKbsOfOrg, recountIndexState } from './index-state';
export type { IndexDelta } from './index-state';
export { NO_TERMS, applyTermDelta, recountTerms, termCountsOf } from './search-stats';
export type { TermCounts } from './search-stats';
export { SegmentsFile, clean, segmentRows, streamSegmentRows } from './segment-rows';
export type { SegmentInput, SegmentRow } from './segment-rows';
export { footnoteMarker, markerMatches, noteMarkers, quarterTags, yearTags } from './tags';
export { searchStatement } from './search-statement';
export { normaliseSearchBody } from './search-request';
export type { SearchRequest } from './search-request';
export { analyse, queryLexemes, stemEnglish, verifyAnalyser } from './lexemes';
export { FILLER_TEXT, MAX_TERMS, queryTerms, queryText, tokenize } from './query-terms';
export type { QueryText, TermGroup } from './query-terms';
export { RANKING, candidateSearchSql, filterOnlySql, noHitsSql, queryLexemesSql, textSearchSql } from './search-sql';
export type { Ranking, SearchFilters, SearchRow, SearchScope } from './search-sql';
export { MemorySearch, estimateBytes, estimateLoadedBytes, scoreCandidates } from './memory-search';
export type { CopySize } from './memory-search';
export { PackedStrings, TermStore } from './memory-terms';
export type { Term } from './memory-terms';
export type { Candidates, KbCopy, MemoryAnswer, MemoryOutcome, MemorySearchOptions } from './memory-search';
