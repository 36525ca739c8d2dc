// A job's artifact manifest id is derived from the job id, so a redelivered job rewrites the same
// bundle under the same names instead of leaving a second, orphaned one behind.
import { createHash } from 'node:crypto';

/** A name-based UUID (version 5 layout, sha256) of a name. */
function nameUuid(name: string): string {
  const h = createHash('sha256').update(name).digest('hex');
  const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** The parse manifest of a parse job. */
export const parseManifestIdFor = (jobId: string) => nameUuid(`docfleet:parse-manifest:${jobId}`);

/** The extract manifest of an extraction job: a re-run rewrites the same bundle. */
export const extractManifestIdFor = (jobId: string) => nameUuid(`docfleet:extract-manifest:${jobId}`);
