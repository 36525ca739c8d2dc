import path from 'node:path';
import { requireKbAccess, type Principal } from '@docfleet/auth';
import { ARTIFACT_KEYS, BUNDLE, DIRECTORY_KEYS, type api, type ArtifactKey } from '@docfleet/contracts';
import type { ArtifactManifest } from '@docfleet/db';
import { ApiError } from '@docfleet/errors';
import type { Deps } from '../../deps';
import { loadFile } from '../files/files';
import { artifactLinks } from '../knowledge-bases/kb-listing';

export function serializeManifest(m: ArtifactManifest): api.ArtifactManifest {
  return {
    id: m.id,
    file_id: m.file_id,
    file_version_id: m.file_version_id,
    job_id: m.job_id,
    artifact_type: m.artifact_type as 'parse' | 'extract',
    manifest: (m.manifest ?? {}) as Record<string, unknown>,
    created_at: m.created_at.toISOString(),
    links: artifactLinks(
      m.id,
      (m.links ?? {}) as Record<string, unknown>,
      ARTIFACT_KEYS,
    ) as api.ArtifactManifest['links'],
  };
}

/** Every manifest of the file (all versions, parse and extract), newest first. */
export async function listArtefacts(deps: Pick<Deps, 'db'>, p: Principal, fileId: string) {
  const file = await loadFile(deps.db, p, fileId);
  return deps.db.artifactManifest.findMany({
    where: { file_id: file.id, org_id: p.orgId },
    orderBy: [{ created_at: 'desc' }, { id: 'desc' }],
  });
}

/** A manifest of the caller's organisation on a live file they can see; anything else looks unknown. */
export async function loadManifest(deps: Pick<Deps, 'db'>, p: Principal, manifestId: string) {
  const m = await deps.db.artifactManifest.findFirst({ where: { id: manifestId, org_id: p.orgId } });
  const file =
    m &&
    (await deps.db.file.findFirst({
      where: { id: m.file_id, org_id: p.orgId },
      select: { knowledge_base_id: true, deleted_at: true },
    }));
  if (!m || !file || file.deleted_at) throw new ApiError('artefact_manifest_not_found', 'Artifact manifest not found.');
  await requireKbAccess(deps.db, p, file.knowledge_base_id, 'viewer');
  return m;
}

/** A directory member name: one path segment, nothing that could climb or hide. */
export function assertChildName(name: string): void {
  // eslint-disable-next-line no-control-regex
  if (name === '' || name === '.' || name.includes('..') || /[/\\\u0000-\u001f]/.test(name)) {
    throw new ApiError(
      'invalid_artefact_child_path',
      "The 'file' parameter must be a plain member name (no '..', '/' or '\\').",
    );
  }
}

const CONTENT_TYPES: Record<string, string> = {
  '.md': 'text/markdown; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
};
export const contentTypeOf = (name: string) =>
  CONTENT_TYPES[path.extname(name).toLowerCase()] ?? 'application/octet-stream';

export type ArtifactRead =
  | { kind: 'listing'; body: { entries: Array<{ name: string; kind: string; url: string }> } }
  | { kind: 'object'; storageKey: string; contentType: string; size: number };

/**
 * Resolves GET /v1/artifacts/{manifestId}/{key}[?file=NAME]: a stored object to stream, or the
 * listing of a directory artifact. The manifest's links map keys to names inside its bundle.
 */
export async function readArtifact(
  deps: Pick<Deps, 'db' | 'storage'>,
  p: Principal,
  manifestId: string,
  key: string,
  file: string | undefined,
): Promise<ArtifactRead> {
  if (file !== undefined) assertChildName(file);
  const m = await loadManifest(deps, p, manifestId);
  const links = (m.links ?? {}) as Record<string, unknown>;
  const rel = (ARTIFACT_KEYS as readonly string[]).includes(key) ? links[key] : undefined;
  if (typeof rel !== 'string' || !rel)
    throw new ApiError('artefact_not_found', `This manifest carries no '${key}' artifact.`);
  const base = `${m.storage_prefix}/${rel}`;
  if (DIRECTORY_KEYS.includes(key as ArtifactKey)) {
    if (file === undefined) {
      const entries = (await deps.storage.list(base)).filter((e) => e.kind === 'file');
      return {
        kind: 'listing',
        body: {
          entries: entries.map((e) => ({
            name: e.name,
            kind: 'file',
            url: `/v1/artifacts/${m.id}/${key}?file=${encodeURIComponent(e.name)}`,
          })),
        },
      };
    }
    return object(deps, `${base}/${file}`, `'${file}' is not in '${key}'.`);
  }
  if (file !== undefined)
    throw new ApiError('artefact_not_found', `'${key}' is not a directory artifact; drop the 'file' parameter.`);
  return object(deps, base, `The '${key}' artifact is missing from storage.`);
}

async function object(deps: Pick<Deps, 'storage'>, storageKey: string, missing: string): Promise<ArtifactRead> {
  let size: number;
  try {
    size = await deps.storage.size(storageKey);
  } catch {
    throw new ApiError('artefact_not_found', missing);
  }
  return { kind: 'object', storageKey, contentType: contentTypeOf(storageKey), size };
}

/**
 * segments.json of the newest parse of the file's current version (docs/api.md, "Reading artifacts":
 * "content from the newest parse"; old versions do not count). 409 file_must_be_parsed when there is none to
 * read.
 */
export async function segmentsObject(deps: Pick<Deps, 'db' | 'storage'>, p: Principal, fileId: string) {
  const file = await loadFile(deps.db, p, fileId);
  const m = await deps.db.artifactManifest.findFirst({
    where: { file_version_id: file.current_version.id, artifact_type: 'parse', org_id: p.orgId },
    orderBy: [{ created_at: 'desc' }, { id: 'desc' }],
  });
  const storageKey = m ? `${m.storage_prefix}/${BUNDLE.segments_json}` : undefined;
  if (!storageKey || !(await deps.storage.exists(storageKey))) {
    throw new ApiError(
      'file_must_be_parsed',
      'The current version of this file has no parse artifacts yet; parse it first.',
    );
  }
  return { storageKey, size: await deps.storage.size(storageKey) };
}
