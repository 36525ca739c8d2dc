// Reading parse output: one artifact of the newest parse (or extraction), and the segments.
import type { ArtifactKey, DocfleetClient } from '@docfleet/sdk';
import { z } from 'zod';
import { ARTIFACT_KEYS, manifestTypeFor, newestManifest } from '../artifacts';
import { ToolInputError } from '../errors';
import { fileId } from '../schemas';
import { READ_ONLY, defineTool, jsonText } from '../tool';

/** Keeps one answer within what an agent's context can take; the rest is reachable through segments. */
const MAX_TEXT_CHARS = 400_000;

const WHEN_PRESENT: Record<ArtifactKey, string> = {
  result_md: 'every parse writes it',
  grounding_json: 'every parse writes it',
  result_json: 'only extraction jobs write it',
  workbook_json: 'only spreadsheets (xlsx, csv) have it',
  tables_json: 'only spreadsheets (xlsx, csv) have it',
  pages: 'only PDFs and images have page images',
  imgs: 'only documents with figures, charts or tables have crops',
};

async function describeFile(client: DocfleetClient, fileIdValue: string): Promise<string> {
  const { file } = await client.files.get(fileIdValue);
  return `file "${file.filename}" (${file.id})`;
}

/** Why there is nothing to read, naming the file, and what to do about it. */
async function neverProduced(client: DocfleetClient, fid: string, key: ArtifactKey): Promise<never> {
  const name = await describeFile(client, fid);
  const { jobs } = await client.files.jobs(fid);
  const kind = manifestTypeFor(key);
  const active = jobs.find((j) => j.kind === kind && (j.status === 'queued' || j.status === 'running'));
  if (kind === 'extract') {
    throw new ToolInputError(
      active
        ? `${name} has no extraction result yet: extract job ${active.job_id} is ${active.status} (${active.percent}%); poll service_job_status and read result_json when it completes`
        : `${name} has never been extracted, so it has no result_json; run service_extract first`,
      'no_artifact',
    );
  }
  throw new ToolInputError(
    active
      ? `${name} has not finished parsing: parse job ${active.job_id} is ${active.status} (${active.percent}%); poll service_job_status and read ${key} when it completes`
      : `${name} has never been parsed, so it has no ${key}; run service_parse_file and wait for the job to complete`,
    'file_never_parsed',
  );
}

export const artifactTools = [
  defineTool({
    name: 'service_read_artifact',
    title: 'Read a parse artifact',
    description:
      "Reads one artifact of the file's newest parse (the manifest with the latest created_at). Keys: result_md (readable markdown; " +
      'start here), grounding_json (every element with page, box, label, content), pages (listing of page images), imgs (listing of cropped ' +
      'figures), workbook_json and tables_json (spreadsheets only), result_json (the newest extraction result, from service_extract). ' +
      'Fails with a message naming the file when it was never parsed.',
    input: z.strictObject({
      file_id: fileId(),
      key: z
        .enum(ARTIFACT_KEYS, { error: `key must be one of ${ARTIFACT_KEYS.join(', ')}` })
        .describe('which artifact to read'),
    }),
    annotations: READ_ONLY,
    run: async ({ file_id, key }, { client }) => {
      const { artifacts } = await client.files.artefacts(file_id);
      const manifest = newestManifest(artifacts, manifestTypeFor(key));
      if (!manifest) return neverProduced(client, file_id, key);
      if (!manifest.links[key]) {
        throw new ToolInputError(
          `the newest ${manifest.artifact_type} of ${await describeFile(client, file_id)} (manifest ${manifest.id}, ${manifest.created_at}) has no ${key}: ${WHEN_PRESENT[key]}`,
          'artefact_not_found',
        );
      }
      const body = await client.artifacts.get(manifest.id, key);
      let text = typeof body === 'string' ? body : Buffer.isBuffer(body) ? body.toString('base64') : jsonText(body);
      const truncated = text.length > MAX_TEXT_CHARS;
      if (truncated)
        text = `${text.slice(0, MAX_TEXT_CHARS)}\n… [truncated at ${MAX_TEXT_CHARS} characters; use service_get_segments or service_search for the rest]`;
      const about = {
        file_id,
        key,
        manifest_id: manifest.id,
        artifact_type: manifest.artifact_type,
        file_version_id: manifest.file_version_id,
        created_at: manifest.created_at,
        manifest: manifest.manifest,
        truncated,
      };
      return {
        content: [
          { type: 'text', text: jsonText(about) },
          { type: 'text', text },
        ],
      };
    },
  }),

  defineTool({
    name: 'service_get_segments',
    title: 'Segments with coordinates',
    description:
      "The segments of the file's newest parse: id (the citation anchor used by search and extraction), title, markdown, and " +
      'coordinates (pageNumber, xmin/ymin/xmax/ymax on a 0-1000 scale, top-left origin). Table segments may carry cells. ' +
      'Fails with file_must_be_parsed when the file has no parse.',
    input: z.strictObject({ file_id: fileId() }),
    annotations: READ_ONLY,
    run: async ({ file_id }, { client }) => {
      const segments = await client.files.segments(file_id);
      return { file_id, count: segments.length, segments };
    },
  }),
];
