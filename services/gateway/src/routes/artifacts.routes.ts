import { pipeline } from 'node:stream/promises';
import { api } from '@docfleet/contracts';
import type { StorageDriver } from '@docfleet/storage';
import type { Response } from 'express';
import { z } from 'zod';
import type { Deps } from '../deps';
import type { ApiRoutes } from '../http/route';
import { listArtefacts, readArtifact, segmentsObject, serializeManifest } from '../domain/artifacts/artifacts';

const tags = ['Artifacts'];
const FileParams = z.object({ fileId: api.Uuid });

/** Streams a stored object; artifacts under a manifest never change, so clients may cache them briefly. */
async function sendObject(
  res: Response,
  storage: StorageDriver,
  storageKey: string,
  contentType: string,
  size: number,
) {
  res.status(200);
  res.setHeader('content-type', contentType);
  res.setHeader('content-length', String(size));
  res.setHeader('cache-control', 'private, max-age=300');
  try {
    await pipeline(storage.readStream(storageKey), res);
  } catch (err) {
    if (!res.headersSent) throw err;
    res.destroy(err as Error);
  }
}

export function artifactRoutes(r: ApiRoutes, deps: Deps) {
  r.add(
    {
      method: 'get',
      path: '/v1/files/:fileId/artefacts',
      summary: 'Artifact manifests of a file, newest first (links are API paths)',
      tags,
      params: FileParams,
      responses: { 200: { description: 'manifests', schema: api.ArtifactManifestList } },
      errors: ['file_not_found'],
    },
    async ({ params, principal }) => ({
      body: { artifacts: (await listArtefacts(deps, principal, params.fileId)).map(serializeManifest) },
    }),
  );
  r.add(
    {
      method: 'get',
      path: '/v1/artifacts/:manifestId/:key',
      summary: 'An artifact: its content, or for pages/imgs without ?file= a listing',
      tags,
      params: api.ArtifactParams,
      query: api.ArtifactQuery,
      responses: {
        200: {
          description: 'content (markdown, JSON, PNG or JPEG by key) or a directory listing { entries }',
          schema: api.ArtifactDirectoryListing,
        },
      },
      errors: ['invalid_artefact_child_path', 'artefact_manifest_not_found', 'artefact_not_found'],
    },
    async ({ params, query, principal, res }) => {
      const a = await readArtifact(deps, principal, params.manifestId, params.key, query.file);
      if (a.kind === 'listing') return { body: a.body };
      await sendObject(res, deps.storage, a.storageKey, a.contentType, a.size);
    },
  );
  r.add(
    {
      method: 'get',
      path: '/v1/files/:fileId/segments',
      summary: 'Segments of the newest parse of the current version (bare array)',
      tags,
      params: FileParams,
      responses: {
        200: { description: 'Segment[] with 0-1000 coordinates', schema: z.array(z.record(z.string(), z.unknown())) },
      },
      errors: ['file_not_found', 'file_must_be_parsed'],
    },
    async ({ params, principal, res }) => {
      const s = await segmentsObject(deps, principal, params.fileId);
      await sendObject(res, deps.storage, s.storageKey, 'application/json; charset=utf-8', s.size);
    },
  );
}
