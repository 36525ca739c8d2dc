// Reads what a workflow needs from the newest parse of a file version: its segments (always) and
// its grounding (pages with headers and footers, for split and classify). Shared by the gateway
// (which refuses unparsed files before charging) and the workflow worker (which runs the model).
import { BUNDLE, type GroundingDocument, type Segment } from '@docfleet/contracts';
import type { ArtifactManifest, Db, Tx } from '@docfleet/db';
import { ApiError, type ErrorCode } from '@docfleet/errors';
import { buildEvidence, type Evidence } from '@docfleet/models';
import type { StorageDriver } from '@docfleet/storage';

export interface ParseBundle {
  manifest: ArtifactManifest;
  segments: Segment[];
  /** Present when the parse wrote one (PDFs, images and spreadsheets all do). */
  grounding?: GroundingDocument;
}

export interface LoadOptions {
  orgId: string;
  fileVersionId: string;
  /** Keep only these segments (request order is not kept: reading order is). */
  segmentIds?: string[];
  /** Also read grounding.json (page texts with headers and footers). */
  withGrounding?: boolean;
  /** Error code when there is no readable parse (the two extraction paths use different codes). */
  missingCode?: Extract<ErrorCode, 'file_must_be_parsed' | 'file_must_be_parsed_before_extraction'>;
}

/** The newest parse manifest of a version, or null. */
export function newestParseManifest(db: Db | Tx, orgId: string, fileVersionId: string) {
  return db.artifactManifest.findFirst({
    where: { org_id: orgId, file_version_id: fileVersionId, artifact_type: 'parse' },
    orderBy: [{ created_at: 'desc' }, { id: 'desc' }],
  });
}

/**
 * The newest parse of a version with its bundle's keys, and the error a missing or unreadable
 * bundle answers with (every reader of a parse refuses the same way).
 */
export async function newestParse(db: Db | Tx, opts: Pick<LoadOptions, 'orgId' | 'fileVersionId' | 'missingCode'>) {
  const code = opts.missingCode ?? 'file_must_be_parsed';
  const missing = () =>
    new ApiError(code, 'The current version of this file has no readable parse yet; parse it first.');
  const manifest = await newestParseManifest(db, opts.orgId, opts.fileVersionId);
  if (!manifest) throw missing();
  const segKey = `${manifest.storage_prefix}/${BUNDLE.segments_json}`;
  const grKey = `${manifest.storage_prefix}/${BUNDLE.grounding_json}`;
  return { manifest, code, missing, segKey, grKey };
}

export async function loadParseBundle(db: Db | Tx, storage: StorageDriver, opts: LoadOptions): Promise<ParseBundle> {
  const { manifest, code, missing, segKey, grKey } = await newestParse(db, opts);
  let segments: Segment[];
  try {
    segments = JSON.parse((await storage.read(segKey)).toString('utf8')) as Segment[];
  } catch {
    throw missing();
  }
  if (opts.segmentIds?.length) {
    const wanted = new Set(opts.segmentIds);
    segments = segments.filter((s) => wanted.has(s.id));
    if (!segments.length)
      throw new ApiError(code, 'None of the given segment_ids belong to the newest parse of this file.');
  }
  let grounding: GroundingDocument | undefined;
  if (opts.withGrounding) {
    if (await storage.exists(grKey))
      grounding = JSON.parse((await storage.read(grKey)).toString('utf8')) as GroundingDocument;
  }
  return { manifest, segments, ...(grounding ? { grounding } : {}) };
}

/**
 * What the gateway checks before it charges: the version has a readable parse (and, when
 * segment_ids are given, at least one of them is in it). Reads segments.json only in that case;
 * the worker loads the bundle itself when it runs.
 */
export async function assertParsed(
  db: Db | Tx,
  storage: StorageDriver,
  opts: Omit<LoadOptions, 'withGrounding'>,
): Promise<void> {
  if (opts.segmentIds?.length) {
    await loadParseBundle(db, storage, opts);
    return;
  }
  const { missing, segKey } = await newestParse(db, opts);
  if (!(await storage.exists(segKey))) throw missing();
}

export function evidenceOf(bundle: ParseBundle): Evidence {
  return buildEvidence(bundle.segments, bundle.grounding);
}

/** Pages of the parse: the grounding's page count, else the highest page a segment sits on. */
export function pageCountOf(bundle: ParseBundle): number {
  if (bundle.grounding?.pages.length) return bundle.grounding.pages.length;
  let max = 0;
  for (const s of bundle.segments) {
    const n = (s.coordinates as { pageNumber?: number }).pageNumber;
    max = Math.max(max, typeof n === 'number' ? n : 1);
  }
  return max;
}
