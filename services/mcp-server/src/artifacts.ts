// Which manifest service_read_artifact reads. The rule (docs/api.md, "Reading artifacts"): sort the file's manifests by
// created_at and take the newest, never trusting the listing's order. `result_json` lives on
// extract manifests, every other key on parse manifests, so the newest manifest of the matching
// type is the one that can carry the key.
import type { ArtifactKey, ArtifactManifest } from '@docfleet/sdk';

// The keys the API exposes are the contract's (libs/contracts bundle.ts), not a list of our own.
export { ARTIFACT_KEYS } from '@docfleet/contracts';

export function manifestTypeFor(key: ArtifactKey): 'parse' | 'extract' {
  return key === 'result_json' ? 'extract' : 'parse';
}

/** Newest manifest of a type by created_at (ties broken by id so the choice is stable), or undefined. */
export function newestManifest(
  manifests: readonly ArtifactManifest[],
  type: 'parse' | 'extract',
): ArtifactManifest | undefined {
  return manifests
    .filter((m) => m.artifact_type === type)
    .sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at) || (a.id < b.id ? 1 : -1))[0];
}
