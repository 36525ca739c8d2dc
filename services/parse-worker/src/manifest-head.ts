// The part of a PDF parse's manifest row that one run and a sharded run write alike: whose bundle it
// is, where it is stored and which of the bundle's files exist (crops only when a figure was cut).
import fs from 'node:fs/promises';
import path from 'node:path';
import { BUNDLE } from '@docfleet/contracts';
import type { ArtifactManifest } from '@docfleet/db';
import type { JobContext } from './job-context';

export async function pdfManifestHead(ctx: JobContext, pageImages: boolean) {
  const { job, file, version } = ctx;
  const crops = await fs.readdir(path.join(ctx.outDir, BUNDLE.imgs)).catch(() => [] as string[]);
  return {
    id: ctx.manifestId,
    org_id: job.org_id,
    file_id: file.id,
    file_version_id: version.id,
    job_id: job.id,
    artifact_type: 'parse' as const,
    storage_prefix: ctx.prefix,
    links: {
      result_md: BUNDLE.result_md,
      grounding_json: BUNDLE.grounding_json,
      pages: pageImages ? BUNDLE.pages : null,
      imgs: crops.length ? BUNDLE.imgs : null,
      workbook_json: null,
      tables_json: null,
      result_json: null,
    },
  };
}

/**
 * The row of a parse that keeps an earlier parse's bundle (nothing changed since): this job's ids, the
 * earlier bundle's storage and files. PDFs and workbooks reuse alike.
 */
export function reusedManifestHead(ctx: JobContext, prev: ArtifactManifest) {
  const { job, file, version } = ctx;
  return {
    id: ctx.manifestId,
    org_id: job.org_id,
    file_id: file.id,
    file_version_id: version.id,
    job_id: job.id,
    artifact_type: 'parse' as const,
    storage_prefix: prev.storage_prefix,
    links: prev.links ?? {},
  };
}
