import type { Principal } from '@docfleet/auth';
import { Prisma } from '@docfleet/db';
import type { api } from '@docfleet/contracts';
import type { Deps } from '../../deps';
import { loadKb } from './knowledge-bases';
import { loadFolder } from './folders';
import { publicJobStatus } from '@docfleet/jobs';

/** Artifact links are API paths (prefix {base_url}, send the same auth header). */
export function artifactLinks(manifestId: string, links: Record<string, unknown>, keys: readonly string[]) {
  const out: Record<string, string | null> = {};
  for (const k of keys) out[k] = links?.[k] ? `/v1/artifacts/${manifestId}/${k}` : null;
  return out;
}
export const PARSE_LINK_KEYS = [
  'result_md',
  'grounding_json',
  'workbook_json',
  'tables_json',
  'pages',
  'imgs',
] as const;

interface Row {
  file_id: string;
  filename: string;
  content_type: string;
  folder_id: string | null;
  folder_name: string | null;
  current_version_id: string;
  version_number: number;
  storage_path: string;
  sha256: string;
  byte_size: bigint;
  page_count: number | null;
  metadata: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
  pj_id: string | null;
  pj_status: string | null;
  pj_stage: string | null;
  pj_percent: number | null;
  pj_error: string | null;
  pj_created_at: Date | null;
  pj_completed_at: Date | null;
  ej_id: string | null;
  ej_status: string | null;
  ej_stage: string | null;
  ej_percent: number | null;
  ej_error: string | null;
  ej_created_at: Date | null;
  ej_completed_at: Date | null;
  pm_id: string | null;
  pm_created_at: Date | null;
  pm_links: Record<string, unknown> | null;
  em_id: string | null;
  em_created_at: Date | null;
  em_links: Record<string, unknown> | null;
}

const job = (
  id: string | null,
  status: string | null,
  stage: string | null,
  percent: number | null,
  error: string | null,
  created: Date | null,
  completed: Date | null,
) =>
  id
    ? {
        job_id: id,
        status: publicJobStatus(status!),
        stage,
        percent: percent ?? 0,
        error,
        created_at: created!.toISOString(),
        completed_at: completed?.toISOString() ?? null,
      }
    : null;

/**
 * A cheap stamp of everything a listing entry shows: live file count, and a digest of every file,
 * job (workers must bump jobs.updated_at with every progress write) and artifact manifest of the
 * knowledge base. It is the wire's `index_version` of GET /v1/knowledge-bases/{kbId}/index (not the
 * search index's version): clients polling the listing send it back as If-None-Match and get 304
 * while nothing changed.
 *
 * A digest (a sum of per-row hashes of id and stamp), not the newest stamp: `updated_at` is written
 * before its transaction commits, so a transaction that stamps first and commits last would add a
 * row older than the newest stamp a poll has already seen, and a max() would answer 304 for it for
 * as long as nothing else changed. The sum changes with any row's stamp, whatever order commits
 * land in.
 */
export async function listingVersion(deps: Pick<Deps, 'db'>, kbId: string, folderId?: string): Promise<string> {
  const rows = await deps.db.$queryRaw<{ n: number; digest: bigint | null }[]>`
    SELECT (SELECT count(*)::int FROM files f WHERE f.knowledge_base_id = ${kbId}::uuid AND f.deleted_at IS NULL
              ${folderId ? Prisma.sql`AND f.folder_id = ${folderId}::uuid` : Prisma.empty}) AS n,
      (SELECT coalesce(sum(hashtext(f.id::text || f.updated_at::text)::bigint), 0)
         FROM files f WHERE f.knowledge_base_id = ${kbId}::uuid)
      + (SELECT coalesce(sum(hashtext(j.id::text || j.updated_at::text)::bigint), 0)
           FROM jobs j WHERE j.knowledge_base_id = ${kbId}::uuid)
      + (SELECT coalesce(sum(hashtext(m.id::text)::bigint), 0)
           FROM artifact_manifests m JOIN files f ON f.id = m.file_id WHERE f.knowledge_base_id = ${kbId}::uuid)
      AS digest`;
  return `${rows[0].n}.${(rows[0].digest ?? 0n).toString(36).replace('-', 'n')}`;
}

/**
 * The knowledge-base listing (GET /v1/knowledge-bases/{kbId}/index; "index" is its wire name only):
 * every live file of a knowledge base with its newest parse/extract job and artifacts, in one query.
 * Polling the listing is how clients watch bulk work, so it must stay cheap at thousands of files.
 * Artifacts shown are those of the current version only.
 */
export async function buildKbListing(
  deps: Pick<Deps, 'db'>,
  p: Principal,
  kbId: string,
  folderId?: string,
  ifNoneMatch?: string,
) {
  const kb = await loadKb(deps.db, p, kbId, 'viewer');
  if (folderId) await loadFolder(deps, kb.id, folderId);
  const version = await listingVersion(deps, kb.id, folderId);
  if (ifNoneMatch && ifNoneMatch.replace(/^W\//, '').replace(/"/g, '') === version)
    return { notModified: true as const, version };
  const rows = await deps.db.$queryRaw<Row[]>`
    SELECT f.id AS file_id, f.filename, f.content_type, f.folder_id, fo.name AS folder_name,
      v.id AS current_version_id, v.version_number, v.storage_path, v.sha256, v.byte_size, v.page_count,
      f.metadata, f.created_at, f.updated_at,
      pj.id AS pj_id, pj.status AS pj_status, pj.stage AS pj_stage, pj.percent AS pj_percent, pj.error AS pj_error, pj.created_at AS pj_created_at, pj.completed_at AS pj_completed_at,
      ej.id AS ej_id, ej.status AS ej_status, ej.stage AS ej_stage, ej.percent AS ej_percent, ej.error AS ej_error, ej.created_at AS ej_created_at, ej.completed_at AS ej_completed_at,
      pm.id AS pm_id, pm.created_at AS pm_created_at, pm.links AS pm_links,
      em.id AS em_id, em.created_at AS em_created_at, em.links AS em_links
    FROM files f
    JOIN file_versions v ON v.id = f.current_version_id
    LEFT JOIN folders fo ON fo.id = f.folder_id
    LEFT JOIN LATERAL (SELECT * FROM jobs j WHERE j.file_id = f.id AND j.kind = 'parse' ORDER BY j.created_at DESC LIMIT 1) pj ON true
    LEFT JOIN LATERAL (SELECT * FROM jobs j WHERE j.file_id = f.id AND j.kind = 'extract' ORDER BY j.created_at DESC LIMIT 1) ej ON true
    LEFT JOIN LATERAL (SELECT id, created_at, links FROM artifact_manifests m WHERE m.file_version_id = v.id AND m.artifact_type = 'parse' ORDER BY m.created_at DESC LIMIT 1) pm ON true
    LEFT JOIN LATERAL (SELECT id, created_at, links FROM artifact_manifests m WHERE m.file_version_id = v.id AND m.artifact_type = 'extract' ORDER BY m.created_at DESC LIMIT 1) em ON true
    WHERE f.knowledge_base_id = ${kb.id}::uuid AND f.deleted_at IS NULL
      ${folderId ? Prisma.sql`AND f.folder_id = ${folderId}::uuid` : Prisma.empty}
    ORDER BY f.created_at DESC, f.id DESC`;
  const files: api.KbListingEntry[] = rows.map((r) => ({
    file_id: r.file_id,
    filename: r.filename,
    content_type: r.content_type,
    folder_id: r.folder_id,
    folder_name: r.folder_name,
    current_version_id: r.current_version_id,
    version_number: r.version_number,
    storage_path: r.storage_path,
    sha256: r.sha256,
    byte_size: Number(r.byte_size),
    page_count: r.page_count,
    metadata: r.metadata ?? {},
    created_at: r.created_at.toISOString(),
    updated_at: r.updated_at.toISOString(),
    latest_parse_job: job(
      r.pj_id,
      r.pj_status,
      r.pj_stage,
      r.pj_percent,
      r.pj_error,
      r.pj_created_at,
      r.pj_completed_at,
    ),
    latest_extract_job: job(
      r.ej_id,
      r.ej_status,
      r.ej_stage,
      r.ej_percent,
      r.ej_error,
      r.ej_created_at,
      r.ej_completed_at,
    ),
    parse_artifacts: r.pm_id
      ? {
          manifest_id: r.pm_id,
          created_at: r.pm_created_at!.toISOString(),
          links: artifactLinks(r.pm_id, r.pm_links ?? {}, PARSE_LINK_KEYS) as NonNullable<
            api.KbListingEntry['parse_artifacts']
          >['links'],
        }
      : null,
    extract_artifacts: r.em_id
      ? {
          manifest_id: r.em_id,
          created_at: r.em_created_at!.toISOString(),
          links: { result_json: (r.em_links ?? {}).result_json ? `/v1/artifacts/${r.em_id}/result_json` : null },
        }
      : null,
  }));
  return {
    notModified: false as const,
    version,
    body: { knowledge_base: { id: kb.id, name: kb.name }, index_version: version, files },
  };
}
