// The parse artifact bundle: the contract between the parse worker (writer), the gateway's artifact
// and segment endpoints, and the index worker (readers). Keys are relative to the manifest's
// storage_prefix (artifact_manifests.storage_prefix = artifactPrefix(kbId, fileId, manifestId)).
// artifact_manifests.links maps each artifact key the API exposes to its relative name here (or null).

export const BUNDLE = {
  result_md: 'result.md',
  grounding_json: 'grounding.json',
  workbook_json: 'workbook.json',
  tables_json: 'tables.json',
  result_json: 'result.json',
  /** directory of page_0001.png … */
  pages: 'pages',
  /** directory of cropped figures/tables (*.jpg) */
  imgs: 'imgs',
  /** Internal: the segments derived from this parse (Segment[]), read by GET …/segments and the index worker. */
  segments_json: 'segments.json',
  /** Internal: per-page parse results (page_0001.json: { grounding page, markdown, files }) reused by re-parses of unchanged pages. */
  page_results: 'page-results',
} as const;

/** The artifact keys the API exposes (docs/api.md, Resources: Artifact manifest). */
export const ARTIFACT_KEYS = [
  'result_md',
  'grounding_json',
  'result_json',
  'workbook_json',
  'tables_json',
  'pages',
  'imgs',
] as const;
export type ArtifactKey = (typeof ARTIFACT_KEYS)[number];
export const DIRECTORY_KEYS: readonly ArtifactKey[] = ['pages', 'imgs'];
