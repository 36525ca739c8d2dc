// Search index fixtures for any package's tests: files with versions and parse manifests whose
// bundle holds a segments.json, as the parse worker leaves them (libs/contracts bundle.ts), indexed
// with the indexer the index worker runs (@docfleet/search-index).
import { randomUUID } from 'node:crypto';
import { BUNDLE, type Segment } from '@docfleet/contracts';
import type { Db } from '@docfleet/db';
import { artifactPrefix, fileVersionKey, type StorageDriver } from '@docfleet/storage';
import { indexFileVersion, type SearchIndexDeps } from '@docfleet/search-index';

/** Where the fixtures write: a gateway's database and storage (spawnGateway's `db` and `deps.storage`). */
export interface SearchIndexEnv {
  db: Db;
  storage: StorageDriver;
}

export type SegIn = Partial<Segment> & { id: string; markdown: string };

let pdfX = 0;
/** A PDF-style segment on page `page` (defaults filled in). */
export function seg(id: string, markdown: string, o: Partial<Segment> & { page?: number } = {}): SegIn {
  const { page = 1, ...rest } = o;
  pdfX = (pdfX + 7) % 900;
  return {
    id,
    markdown,
    title: 'Body',
    docId: '',
    docName: '',
    pdfUrl: '',
    sourceType: 'pdf',
    coordinates: { pageNumber: page, xmin: pdfX, ymin: 100, xmax: pdfX + 100, ymax: 200, sourceType: 'pdf' },
    ...rest,
  };
}

export interface Seeded {
  orgId: string;
  kbId: string;
  fileId: string;
  versionId: string;
  manifestId: string;
}

export async function addManifest(
  env: SearchIndexEnv,
  f: { orgId: string; kbId: string; fileId: string; versionId: string },
  segments: SegIn[],
): Promise<string> {
  const id = randomUUID();
  const prefix = artifactPrefix(f.kbId, f.fileId, id);
  await env.storage.put(`${prefix}/${BUNDLE.segments_json}`, JSON.stringify(segments));
  await env.db.artifactManifest.create({
    data: {
      id,
      org_id: f.orgId,
      file_id: f.fileId,
      file_version_id: f.versionId,
      artifact_type: 'parse',
      storage_prefix: prefix,
      manifest: { page_count: 1 },
      links: { result_md: 'result.md' },
    },
  });
  return id;
}

/** A new current version (what PUT …/content does), without a parse. */
export async function addVersion(
  env: Pick<SearchIndexEnv, 'db'>,
  f: { kbId: string; fileId: string },
): Promise<string> {
  const last = await env.db.fileVersion.findFirst({
    where: { file_id: f.fileId },
    orderBy: { version_number: 'desc' },
  });
  const n = (last?.version_number ?? 0) + 1;
  const v = await env.db.fileVersion.create({
    data: {
      file_id: f.fileId,
      version_number: n,
      storage_path: fileVersionKey(f.kbId, f.fileId, n),
      sha256: 'x'.repeat(64),
      byte_size: 1n,
      content_type: 'application/pdf',
      original_filename: 'x.pdf',
    },
  });
  await env.db.file.update({ where: { id: f.fileId }, data: { current_version_id: v.id } });
  return v.id;
}

/** A live file with version 1 and one parse manifest holding `segments` (not indexed yet). */
export async function seedParsedFile(
  env: SearchIndexEnv,
  o: {
    orgId: string;
    kbId: string;
    filename: string;
    segments: SegIn[];
    folderId?: string | null;
    contentType?: string;
  },
): Promise<Seeded> {
  const file = await env.db.file.create({
    data: {
      org_id: o.orgId,
      knowledge_base_id: o.kbId,
      folder_id: o.folderId ?? null,
      filename: o.filename,
      content_type: o.contentType ?? 'application/pdf',
    },
  });
  const versionId = await addVersion(env, { kbId: o.kbId, fileId: file.id });
  const manifestId = await addManifest(env, { orgId: o.orgId, kbId: o.kbId, fileId: file.id, versionId }, o.segments);
  return { orgId: o.orgId, kbId: o.kbId, fileId: file.id, versionId, manifestId };
}

export const indexDeps = (env: SearchIndexEnv, extra: Partial<SearchIndexDeps> = {}): SearchIndexDeps => ({
  db: env.db,
  storage: env.storage,
  ...extra,
});

/** Indexes a manifest as the index worker's 'index.file-version' job does. */
export function indexNow(
  env: SearchIndexEnv,
  s: Pick<Seeded, 'orgId' | 'fileId' | 'versionId' | 'manifestId'>,
  extra: Partial<SearchIndexDeps> = {},
) {
  return indexFileVersion(indexDeps(env, extra), {
    orgId: s.orgId,
    fileId: s.fileId,
    fileVersionId: s.versionId,
    manifestId: s.manifestId,
  });
}

export async function seedAndIndex(env: SearchIndexEnv, o: Parameters<typeof seedParsedFile>[1]): Promise<Seeded> {
  const s = await seedParsedFile(env, o);
  const out = await indexNow(env, s);
  if (out.status !== 'indexed') throw new Error(`fixture not indexed: ${JSON.stringify(out)}`);
  return s;
}

/**
 * Six files of 60 segments each from `text` (every 17th a table segment), the sixth repeating the
 * first one's texts (equal scores, which must be ordered the same way), seeded and indexed in turn.
 */
export async function seedRankingFiles(
  env: SearchIndexEnv,
  o: { orgId: string; kbId: string; text: (words: number) => string },
): Promise<Seeded[]> {
  const out: Seeded[] = [];
  let first: SegIn[] = [];
  for (let f = 0; f < 6; f++) {
    const segments = Array.from({ length: 60 }, (_, i) =>
      f === 5
        ? { ...first[i]!, id: `f5-copy${i}` }
        : i % 17 === 5
          ? seg(`f${f}-t${i}`, o.text(12), { tableMetadata: { isTable: true } } as never)
          : seg(`f${f}-s${i}`, o.text(8 + (i % 5) * 9)),
    );
    if (f === 0) first = segments;
    out.push(await seedAndIndex(env, { orgId: o.orgId, kbId: o.kbId, filename: `part-${f}.pdf`, segments }));
  }
  return out;
}
